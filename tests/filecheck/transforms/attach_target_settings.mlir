// #gpuc.target carries the compile's settings besides the target's options:
// opt_level, fp_contract, line_info and checked, printed where they differ
// from their defaults (3, true, false, false). attach-target sets them from
// its options; one not given keeps the module's own. `gpuc compile` builds
// the same attribute from its flags (CompileOptions.target_attr).
// RUN: gpuc-opt %s --split-input-file -p 'attach-target{target=native opt-level=1 fp-contract=false line-info=true checked=true}' | FileCheck %s --check-prefix=ALL
// RUN: gpuc-opt %s --split-input-file -p 'attach-target{opt-level=0}' | FileCheck %s --check-prefix=KEEP
// RUN: gpuc-opt %s --split-input-file -p attach-target | FileCheck %s --check-prefix=NONE
// RUN: gpuc compile %s --target native -O 2 --no-fp-contract -g --checked --emit mlir --no-cache | FileCheck %s --check-prefix=COMPILE
// RUN: gpuc-opt %s --split-input-file --verify-diagnostics -p 'attach-target{opt-level=7}' | FileCheck %s --check-prefix=BAD
// RUN: echo 'builtin.module {}' | gpuc-opt --verify-diagnostics -p 'attach-target{target=ptx checked=true}' | FileCheck %s --check-prefix=UNCHECKED
// RUN: echo 'builtin.module attributes {gpuc.target = #gpuc.target<native, checked = 1>} {}' | not gpuc-opt 2>&1 | FileCheck %s --check-prefix=KIND

// ALL-LABEL: builtin.module @defaults attributes {gpuc.target = #gpuc.target<native, opt_level = 1, fp_contract = false, line_info = true, checked = true>} {
// KEEP-LABEL: builtin.module @defaults attributes {gpuc.target = #gpuc.target<native, opt_level = 0>} {
// NONE-LABEL: builtin.module @defaults attributes {gpuc.target = #gpuc.target<native>} {
// COMPILE: {gpuc.target = #gpuc.target<native, opt_level = 2, fp_contract = false, line_info = true, checked = true>
// UNCHECKED: error: 'builtin.module' op target 'ptx' has no checked mode; compile for a target that has one, or without checked
// KIND: error: #gpuc.target checked = 1: give true or false
// BAD: error: 'builtin.module' op #gpuc.target opt_level = 7: give 0, 1, 2 or 3
builtin.module @defaults attributes {gpuc.target = #gpuc.target<native>} {
  gpuc.func @k() kernel {
    gpuc.return
  }
}

// -----

// Settings the module carries are kept where the pass gives none.
// ALL-LABEL: builtin.module @own attributes {gpuc.target = #gpuc.target<native, opt_level = 1, fp_contract = false, line_info = true, checked = true>} {
// KEEP-LABEL: builtin.module @own attributes {gpuc.target = #gpuc.target<native, opt_level = 0, line_info = true>} {
// NONE-LABEL: builtin.module @own attributes {gpuc.target = #gpuc.target<native, opt_level = 2, line_info = true>} {
builtin.module @own attributes {gpuc.target = #gpuc.target<native, opt_level = 2, line_info = true>} {
}

