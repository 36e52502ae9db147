"""The amdgpu target: AMD GPUs through LLVM's AMDGPU back-end, code objects
linked by ld.lld (`target.py`). The registry names
`gpuc.targets.amdgpu.target:AMDGPUTarget`, so importing this package loads
nothing."""
