"""`agm export --out`: only a regular file's name is replaced, never a device, a named pipe,
the store exported or the results file exported (each refused in one line, exit 2, nothing
touched). Before, `--force` swapped `/dev/null` (as root) or a named pipe for a regular file,
and `--out STORE/ledger.sqlite --force` replaced the store's ledger with its own export."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from agentmetrology.run.campaign import parse_campaign, run_campaign
from agentmetrology.store import EvidenceStore
from archive.tau2_files import QWEN_AIRLINE, shared
from run.campaign.campaign_fixtures import model_free
from support.agm_runs import agm, agm_process


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model-free store of 6 episodes (one task, one seed)."""
    d = tmp_path_factory.mktemp("dest") / "s"
    with EvidenceStore.open(d, scrub_env=False) as st:
        run_campaign(parse_campaign(model_free(tasks='["T3_duplicates"]', seeds="0")), st)
    return d


def test_a_named_pipe_is_refused_even_forced(store: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    res = agm_process("export", str(store), "--out", str(fifo), "--force")
    assert (res.returncode, res.stdout) == (2, "")
    assert res.stderr == (f"error: {fifo} is a named pipe, not a regular file; give a file "
                          "name (or leave out --out to write to stdout)\n")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_a_device_is_refused_even_forced(store: Path, tmp_path: Path) -> None:
    link = tmp_path / "null"  # a link to /dev/null: the device is checked, the link kept
    link.symlink_to("/dev/null")
    res = agm("export", str(store), "--out", str(link), "--force")
    assert res.returncode == 2
    assert res.stderr == (f"error: {link} is a character device, not a regular file; give a "
                          "file name (or leave out --out to write to stdout)\n")
    assert link.is_symlink()


def test_a_directory_is_named_before_force_is_asked(store: Path, tmp_path: Path) -> None:
    res = agm("export", str(store), "--out", str(tmp_path))  # was: "exists; give --force"
    assert res.returncode == 2
    assert res.stderr == f"error: {tmp_path} is a directory; give a file name\n"


@pytest.mark.parametrize("inside", ["ledger.sqlite", "new.csv", "blobs/../x.csv"])
def test_an_out_inside_the_store_is_refused(store: Path, tmp_path: Path, inside: str) -> None:
    copy = tmp_path / "s"
    shutil.copytree(store, copy)
    ledger = (copy / "ledger.sqlite").read_bytes()
    res = agm("export", str(copy), "--format", "csv", "--out", str(copy / inside), "--force")
    assert res.returncode == 2
    assert res.stderr == (f"error: {copy / inside} is inside the evidence store {copy}; write "
                          "the export outside it\n")
    assert (copy / "ledger.sqlite").read_bytes() == ledger
    assert agm("evidence", "verify", str(copy)).returncode == 0


def test_inspect_logs_are_not_written_into_the_store(store: Path) -> None:
    res = agm("export", str(store), "--format", "inspect", "--out", str(store / "logs"))
    assert res.returncode == 2
    assert res.stderr == (f"error: {store / 'logs'} is inside the evidence store {store}; "
                          "write the export outside it\n")
    assert not (store / "logs").exists()


def test_inspect_logs_under_a_file_are_named_so(store: Path, tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    out = tmp_path / "f" / "logs"  # was: "cannot read the evidence store at STORE: ..."
    res = agm("export", str(store), "--format", "inspect", "--out", str(out))
    assert res.returncode == 2
    assert res.stderr == (f"error: {tmp_path / 'f'} is a file, so --out {out} cannot be made; "
                          "give a directory\n")


def test_a_results_file_is_not_replaced_by_its_export(tmp_path: Path) -> None:
    source = tmp_path / "r.json"
    shutil.copyfile(shared(QWEN_AIRLINE), source)
    before = source.read_bytes()
    res = agm("export", str(source), "--out", str(source), "--force")
    assert res.returncode == 2
    assert res.stderr == f"error: {source} is the file being exported; write the export " \
                         "elsewhere\n"
    assert source.read_bytes() == before
