"""OneFlow v0.4's experimental ``optim``: optimizers over a module's parameters (``SGD``,
``Adam``, ``AdamW``, ``RMSprop``; one file each, over a small ``Optimizer`` base) and
``lr_scheduler``."""

__all__: list[str] = []
