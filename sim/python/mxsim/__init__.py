"""mxsim: Python bridge to the mxsim C core (issue 12).

    import mxsim
    C = mxsim.gemm(A, B, config="configs/mxsf.yaml")   # bit-exact datapath GEMM
    import mxsim.torch
    model = mxsim.torch.convert(model, config="configs/mxsf.yaml")

The numerics live in the C core (libmxcore.so, loaded with ctypes); this
package only arranges operands.  See docs/PYTHON.md.
"""
from ._core import Config, LIB_PATH, PHASES, gemm, gemm_batch, get_config, requant, version  # noqa: F401

__all__ = ["Config", "gemm", "gemm_batch", "requant", "get_config", "version", "LIB_PATH", "PHASES"]
