"""The ptx target: PTX for CUDA through LLVM's NVPTX back-end.

`target.py` is the target (its hooks), `wmma.py` the warp matrix ops as
NVVM's wmma intrinsics. Importing the package imports neither (the registry
names `target.py`)."""
