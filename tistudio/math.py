"""`import tistudio.math as tm` and `from tistudio.math import vec3`: Taichi programs import
`taichi.math` as a module, not only as `ti.math`. It is `tistudio.lang.math` under a second
name (the same module object, so `tm is ti.math`)."""

import sys

from tistudio.lang import math as _math

sys.modules[__name__] = _math
