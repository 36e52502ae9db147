"""The native target: the host CPU, compiled in process by LLVM's JIT.

`target.py` holds the target's hooks, `work_groups.py` the lowering of a
barrier kernel to a work-group function, `faults.py` and `asserts.py` checked
mode and asserts, `abi.py` the launch ABI's one table (docs/native-abi.md).
The package imports nothing by itself, so the executor can read `abi.py`
without loading the compiler side."""
