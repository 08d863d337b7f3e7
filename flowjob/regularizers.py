"""Weight regularizers (``flow.regularizers.l1``, ``.l2``, ``.l1_l2``).

OneFlow does not add a loss term: its job rewriter adds ``l1 * sign(w) + l2 * w`` to the
variable's gradient after the gradient was divided by the loss element count N and before
clipping. That equals adding ``l1 * sum|w| + (l2 / 2) * sum(w**2)`` to the *mean* loss (the
term itself is not divided by N). The runtime applies :func:`regularization_grad`.
"""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.ops.regularizers import (
    Regularizer,
    l1,
    l1_l2,
    l2,
    regularization_grad,
    regularization_loss,
)

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
