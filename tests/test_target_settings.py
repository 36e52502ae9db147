"""The compile's settings live on `#gpuc.target` (opt_level, fp_contract,
line_info, checked): `CompileOptions` builds the attribute once, the dialect
pipeline attaches it, and the lowering reads the module's attribute, not the
options; a changed setting changes the cache key."""

from __future__ import annotations

from pathlib import Path

from gpuc.cache.compiling import compile_key
from gpuc.dialects.attrs import TARGET_ATTR, CompileSettings, TargetAttr
from gpuc.driver import make_options, run
from gpuc.lowering.context import translate_module
from gpuc.targets import configured_settings, configured_target

SAXPY = Path(__file__).resolve().parent.parent / "examples" / "saxpy.mlir"


def test_the_options_build_the_attribute_the_module_carries() -> None:
    options = make_options(
        "native", {"opt_level": 1, "fp_contract": False, "checked": True}
    )
    c = run(str(SAXPY), options, stop_after="dialect")
    assert c.module is not None
    attr = c.module.attributes[TARGET_ATTR]
    assert attr == c.configured == options.target_attr()
    assert isinstance(attr, TargetAttr)
    assert attr.settings == CompileSettings(
        opt_level=1, fp_contract=False, checked=True
    )
    assert (
        str(attr)
        == "#gpuc.target<native, opt_level = 1, fp_contract = false, checked = true>"
    )
    assert configured_target(c.module) == c.target


def test_the_lowering_reads_the_module_attribute() -> None:
    """The same module translated twice, its attribute edited in between:
    what the attribute says is what the LLVM IR gets."""
    c = run(str(SAXPY), make_options("ptx", {}), stop_after="dialect")
    module = c.module
    assert module is not None
    contracted = str(translate_module(module, c.target))
    attr = module.attributes[TARGET_ATTR]
    assert isinstance(attr, TargetAttr)
    module.attributes[TARGET_ATTR] = attr.with_settings(
        CompileSettings(fp_contract=False, line_info=True)
    )
    assert configured_settings(module).line_info
    apart = str(translate_module(module, c.target))
    assert "llvm.fmuladd" in contracted and "llvm.fmuladd" not in apart
    assert "!DICompileUnit" not in contracted and "!DICompileUnit" in apart


def key(target: str, **options: object) -> str:
    c = run(str(SAXPY), make_options(target, options), stop_after="dialect")
    return compile_key(c)


def test_every_setting_changes_the_key() -> None:
    base = {"native": key("native"), "ptx": key("ptx")}
    changed = [
        ("native", key("native", checked=True)),
        ("native", key("native", opt_level=0)),
        ("ptx", key("ptx", opt_level=2)),
        ("ptx", key("ptx", fp_contract=False)),
        ("ptx", key("ptx", line_info=True)),
    ]
    assert all(k != base[target] for target, k in changed)
    assert len({k for _, k in changed}) == len(changed)
    assert key("native", validate=True) == base["native"]  # validation makes nothing
