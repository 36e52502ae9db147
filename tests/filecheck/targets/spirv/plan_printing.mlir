// plan-printing writes the spirv target's decisions on which helpers print
// (LLVM 22's SPIR-V back-end takes printf only in a kernel): a helper that
// reaches a printf, or an assert whose failing threads print, is inlined
// into its kernel (`always_inline`); a helper whose failing asserts print
// their line gets `gpuc.prints_failures`, one called from a no_inline helper
// does not (its failures report through the error record only). The
// lowering reads these and the kernels' records, and decides nothing again.
// RUN: gpuc-opt %s -p 'attach-target{target=spirv},classify-entrypoints,finalize-kernels,plan-printing' | FileCheck %s
// The spirv pipeline lists it last, so --print-ir-after-all shows it (at O0,
// where `inline` leaves the helpers called once for plan-printing to mark).
// RUN: gpuc compile %s --target spirv -O0 --emit mlir --print-ir-after-all --no-cache -o /dev/null 2>&1 | FileCheck %s --check-prefix=LISTED
// The lowering: printing helpers are alwaysinline; the no_inline one's
// failing assert prints nothing.
// RUN: gpuc-opt %s -t 'llvm{target=spirv stage=link}' | FileCheck %s --check-prefix=LLVM

// LISTED: IR Dump After verify-target
// LISTED: IR Dump After plan-printing
// LISTED: gpuc.prints_failures

// CHECK-LABEL: gpuc.func private @check(%v: i32) -> i32 helper always_inline attributes {gpuc.prints_failures} {
// CHECK-LABEL: gpuc.func private @say(%v: i32) helper always_inline {
// CHECK-LABEL: gpuc.func private @quiet(%v: i32) -> i32 helper {
// CHECK-LABEL: gpuc.func private @apart(%v: i32) -> i32 helper no_inline {
// CHECK-LABEL: gpuc.func private @under(%v: i32) -> i32 helper {

// LLVM: define internal spir_func i32 @check({{.*}}) #[[INLINE:[0-9]+]]
// LLVM: call spir_func i32 {{.*}}@printf
// LLVM: define internal spir_func void @say({{.*}}) #[[INLINE]]
// LLVM: define internal spir_func i32 @quiet(i32 %v) {
// LLVM: define internal spir_func i32 @apart(
// LLVM-NOT: @printf
// LLVM: define internal spir_func i32 @under({{.*}}) {
// LLVM-NOT: @printf
// LLVM: define spir_kernel void @k(
// LLVM: attributes #[[INLINE]] = { alwaysinline }

builtin.module {
  gpuc.func private @check(%v: i32) -> i32 helper {
    %z = arith.constant 0 : i32
    %ok = arith.cmpi sgt, %v, %z : i32
    cf.assert %ok, "v must be positive"
    gpuc.return %v : i32
  }
  gpuc.func private @say(%v: i32) helper {
    gpuc.printf "v = %d\0A" %v : i32
    gpuc.return
  }
  gpuc.func private @quiet(%v: i32) -> i32 helper {
    %one = arith.constant 1 : i32
    %w = arith.addi %v, %one : i32
    gpuc.return %w : i32
  }
  gpuc.func private @apart(%v: i32) -> i32 helper no_inline {
    %w = gpuc.call @under(%v) : (i32) -> i32
    gpuc.return %w : i32
  }
  gpuc.func private @under(%v: i32) -> i32 helper {
    %z = arith.constant 0 : i32
    %ok = arith.cmpi ne, %v, %z : i32
    cf.assert %ok, "v must not be zero"
    gpuc.return %v : i32
  }
  gpuc.func @k(%p: !gpuc.ptr<i32, global>, %n: i32) kernel {
    %a = gpuc.call @check(%n) : (i32) -> i32
    gpuc.call @say(%a) : (i32) -> ()
    %b = gpuc.call @quiet(%a) : (i32) -> i32
    %c = gpuc.call @apart(%b) : (i32) -> i32
    %i = gpuc.global_id x
    gpuc.store %c, %p[%i] : !gpuc.ptr<i32, global>
    gpuc.return
  }
}
