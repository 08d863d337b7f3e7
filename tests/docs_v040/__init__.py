"""OneFlow's documentation programs at v0.4.0, run unchanged through ``flowjob run``."""
