// A bf16 atomic add (tests/filecheck/lowering/half_types_errors.mlir): no
// target has one; verify-target refuses it.
gpuc.func @add(%a: !gpuc.ptr<bf16, global>, %v: !gpuc.ptr<bf16, global>) kernel {
  %x = gpuc.load %v : !gpuc.ptr<bf16, global>
  %o = gpuc.atomic_rmw add %a, %x : !gpuc.ptr<bf16, global>
  gpuc.return
}
