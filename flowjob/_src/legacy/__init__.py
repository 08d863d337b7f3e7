"""OneFlow's deprecated spellings and the legacy ``config.train`` translation, in one place.

Everything here works as its replacement does and prints OneFlow's deprecation line once per
process. The public namespaces list which of these names they serve (their ``_deprecations``
dicts); the engine packages under ``_src/`` never import this package.
"""

from ._checkpoint import CheckPoint, SimpleCheckPointManager
from ._decode_ofrecord import (
    BlobConf,
    ImageCodec,
    ImagePreprocessor,
    ImageResizePreprocessor,
    NormByChannelPreprocessor,
    RawCodec,
    decode_ofrecord,
)
from ._model_update_conf import from_model_update_conf, scheduler_from_conf
from ._namespaces import (
    FixedTensorDef,
    InitEagerGlobalSession,
    MirroredTensorDef,
    consistent_strategy,
    consistent_strategy_enabled,
    device_prior_placement,
    fixed_placement,
    inter_job_reuse_mem_strategy,
    is_deprecated,
    mirrored_strategy,
    mirrored_strategy_enabled,
    name_scope,
    scope_current_scope,
)
from ._renamed import PolynomialSchduler, ofrecord_loader, truncated_normal
from ._train_config import (
    FunctionConfig,
    TrainConfig,
    function,
    function_config,
    global_function,
)
