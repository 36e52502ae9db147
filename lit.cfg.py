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
):
    if var in os.environ:
        config.environment[var] = os.environ[var]

filecheck = shutil.which("filecheck") or "filecheck"
config.substitutions.append(("FileCheck", filecheck))
config.substitutions.append(("%root", config.test_source_root))
if shutil.which("mlir-opt-16"):
    config.available_features.add("mlir-opt-16")
