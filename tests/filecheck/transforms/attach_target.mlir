// attach-target sets the module's configured target once: the spec it is
// given, or (empty) the module's own, else the default target (ptx).
// RUN: gpuc-opt %s --split-input-file -p attach-target | FileCheck %s
// RUN: gpuc-opt %s --split-input-file -p 'attach-target{target="ptx{sm=80 ptx_isa=78}"}' | FileCheck %s --check-prefix=SPEC
// RUN: not gpuc-opt %s -p 'attach-target{target="ptx{sm=1}"}' 2>&1 | FileCheck %s --check-prefix=BADSM
// RUN: not gpuc-opt %s -p 'attach-target{target="ptx{bogus=1}"}' 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not gpuc-opt %s -p 'attach-target{target=tpu}' 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// BADSM: sm_1 is not supported; choose one of sm_75
// BADOPT: bad target spec 'ptx{bogus=1}': Provided arguments ["bogus"] not found
// UNKNOWN: unknown target 'tpu'; expected one of: ptx, spirv, native

// CHECK-LABEL: builtin.module @bare attributes {gpuc.target = #gpuc.target<ptx, sm = 90>} {
// SPEC-LABEL: builtin.module @bare attributes {gpuc.target = #gpuc.target<ptx, sm = 80, ptx_isa = 78>} {
builtin.module @bare {
}

// -----

// The module's own target is kept, and a spec that agrees with it is fine.
// CHECK-LABEL: builtin.module @own attributes {gpuc.target = #gpuc.target<ptx, sm = 80, ptx_isa = 78>} {
// SPEC-LABEL: builtin.module @own attributes {gpuc.target = #gpuc.target<ptx, sm = 80, ptx_isa = 78>} {
builtin.module @own attributes {gpuc.target = #gpuc.target<ptx, sm = 80, ptx_isa = 78>} {
}
