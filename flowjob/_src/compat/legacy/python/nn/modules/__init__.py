"""``oneflow.python.nn.modules``."""
