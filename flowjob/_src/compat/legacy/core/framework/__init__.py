"""``oneflow.core.framework``."""
