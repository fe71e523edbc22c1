"""Tool worlds: small stateful worlds (permission, transaction, clarification) with contracts."""
