"""`from tistudio.types import ndarray, vector` and `import tistudio.types as tt`: Taichi
programs import `taichi.types` as a module, not only as `ti.types`. It is the `ti.types`
namespace itself under the module's name (the same object, so `tt is ti.types`)."""

import sys

from tistudio.lang.types import types as _types

sys.modules[__name__] = _types  # type: ignore[assignment]
