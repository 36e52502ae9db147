# lit configuration for gpuc's FileCheck tests: `lit tests/filecheck` from the
# repository root. gpuc-opt, gpuc and filecheck come from the active environment.
import os
import shutil

import lit.formats

config.name = "gpuc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["examples", "bench", "docs", "build", ".venv", "Inputs"]
config.environment["PATH"] = os.environ.get("PATH", "")
for var in (
    "HOME",
    "VIRTUAL_ENV",
    "PYTHONPATH",
    "OCL_ICD_VENDORS",
    "OCL_ICD_FILENAMES",
    # The compile server (docs/server.md): GPUC_SERVER=1 lit ... runs every
    # RUN line's gpuc and gpuc-opt through it.
    "GPUC_SERVER",
    "GPUC_SERVER_DIR",
    "GPUC_SERVER_IDLE",
    "XDG_RUNTIME_DIR",
    "XDG_CONFIG_HOME",
    "GPUC_CACHE",
    "GPUC_CACHE_DIR",
):
    if var in os.environ:
        config.environment[var] = os.environ[var]

# LLVM's FileCheck where it is installed (.ci/run installs llvm-22-tools): a
# C++ program starts in milliseconds, the Python clone (`filecheck`, a test
# dependency, the fallback) in about 100 ms, on every RUN: line.
filecheck = next(
    (
        found
        for name in ("FileCheck-22", "FileCheck-19", "FileCheck-16", "FileCheck")
        if (found := shutil.which(name))
    ),
    shutil.which("filecheck") or "filecheck",
)
config.substitutions.append(("FileCheck", filecheck))
config.substitutions.append(("%root", config.test_source_root))
for version in (16, 19, 22):
    if shutil.which(f"mlir-opt-{version}"):
        config.available_features.add(f"mlir-opt-{version}")


def found(finder: str, *args: str) -> bool:
    """Whether gpuc finds a tool (as gpuc.tools looks for it: pip's wheels
    first), so `REQUIRES: spirv-dis` runs a test exactly where gpuc can."""
    try:
        import gpuc.tools

        getattr(gpuc.tools, finder)(*args)
    except Exception:  # not found (ToolError), or gpuc not importable here
        return False
    return True


# Optional tools, one lit feature each: `// REQUIRES: spirv-dis`.
for feature, finder, args in (
    ("spirv-dis", "spirv_tool", ("spirv-dis",)),
    ("spirv-val", "spirv_tool", ("spirv-val",)),
    ("ptxas", "ptxas", ()),
    ("libdevice", "libdevice", ()),
    ("ld.lld", "llvm_tool", ("ld.lld",)),
    ("llvm-objdump", "llvm_tool", ("llvm-objdump",)),
    ("llvm-readelf", "llvm_tool", ("llvm-readelf",)),
):
    if found(finder, *args):
        config.available_features.add(feature)
