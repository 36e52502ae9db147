// verify-target turns what the target cannot express into a diagnostic at the
// dialect level. The target is the module's gpuc.target (attach-target sets
// it; a module without one is for the default target, ptx).
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics -p 'attach-target{target=native},verify-target' | FileCheck %s
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics -p verify-target | FileCheck %s --check-prefix=MODULE
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics -p 'attach-target{target=tpu},verify-target' | FileCheck %s --check-prefix=UNKNOWN

// UNKNOWN: error: unknown target 'tpu'; expected one of: ptx, spirv, native

// A device-side launch is fine for ptx (the default target, that of a module
// without gpuc.target) but the native target cannot express it.
// MODULE-LABEL: builtin.module {
// MODULE:         gpuc.launch @child
builtin.module {
  gpuc.func @parent(%n: index) kernel {
    // CHECK: verify_target.mlir:[[# @LINE + 1]]:5: error: 'gpuc.launch' op launches a kernel from the device, which the native target does not support
    gpuc.launch @child grid(%n) block(%n) () : ()
    gpuc.return
  }
  gpuc.func @child() kernel {
    gpuc.return
  }
}
