// finalize-kernels records the configured target's decisions on each kernel of
// the entrypoint set, and only there: not on an exported helper, nor on a
// kernel the (here hand-written) set leaves out. The record
// (#gpuc.finalized) is what the lowering and the executors read.
// RUN: gpuc-opt %s --split-input-file -p 'attach-target{target=ptx},finalize-kernels' | FileCheck %s
// RUN: gpuc-opt %s --split-input-file -p 'attach-target{target=native},finalize-kernels' | FileCheck %s --check-prefix=NATIVE
// RUN: gpuc-opt %s --split-input-file -p 'attach-target{target=spirv},finalize-kernels' | FileCheck %s --check-prefix=SPIRV

// CHECK-LABEL: gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "k", cconv = "ptx_kernel", shared = 1024>} {
// CHECK-LABEL: gpuc.func @exported() helper {
// CHECK-LABEL: gpuc.func @not_in_set() kernel {
// NATIVE-LABEL: gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "__gpuc_launch_k", state, launch_entry, shared = 1024>} {
// NATIVE-LABEL: gpuc.func @exported() helper {
// SPIRV-LABEL: gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "k", cconv = "spir_kernel", shared = 1024>} {
builtin.module attributes {gpuc.entrypoints = [@k, @exported]} {
  gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel {
    %s = gpuc.shared_alloc 256 : !gpuc.ptr<f32, shared>
    gpuc.return
  }
  gpuc.func @exported() helper {
    gpuc.return
  }
  gpuc.func @not_in_set() kernel {
    gpuc.return
  }
}

// -----

// A barrier reached through a helper, a known block size, and a symbol the
// target spells its own way (PTX has no '-' or '.' in identifiers).
// CHECK-LABEL: gpuc.func @"my-kernel.v2"() kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>, gpuc.finalized = #gpuc.finalized<symbol = "my_$2d_kernel_$_v2", cconv = "ptx_kernel", barrier, shared = 0, block = [64, 1, 1]>} {
// NATIVE-LABEL: gpuc.func @"my-kernel.v2"() kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>, gpuc.finalized = #gpuc.finalized<symbol = "__gpuc_launch_my-kernel.v2", state, launch_entry, barrier, shared = 0, block = [64, 1, 1]>} {
// SPIRV-LABEL: gpuc.func @"my-kernel.v2"() kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>, gpuc.finalized = #gpuc.finalized<symbol = "my-kernel.v2", cconv = "spir_kernel", barrier, shared = 0, block = [64, 1, 1]>} {
builtin.module attributes {gpuc.entrypoints = [@"my-kernel.v2"]} {
  gpuc.func @"my-kernel.v2"() kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
    gpuc.call @sync() : () -> ()
    gpuc.return
  }
  gpuc.func private @sync() helper {
    gpuc.barrier
    gpuc.return
  }
}

// -----

// Each kernel's record says what its launch needs, from the call graph: the
// error record where it reaches an assert (ptx and spirv report asserts
// through one, and the record lists the asserts it can report there, by
// id, with the message the launch raises; native reports through its state), `prints` where it reaches a
// printf or an assert, maybe through a helper; a kernel reaching neither has
// neither flag, though the module prints.
// CHECK-LABEL: gpuc.func @asserts(%n: i32) kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "asserts", cconv = "ptx_kernel", errors = {1 = "{{.*}}finalize_kernels.mlir:78:5: assertion failed: n is negative"}, prints, shared = 0>} {
// CHECK-LABEL: gpuc.func @prints(%n: i32) kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "prints", cconv = "ptx_kernel", prints, shared = 0>} {
// CHECK-LABEL: gpuc.func @quiet(%n: i32) kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "quiet", cconv = "ptx_kernel", shared = 0>} {
// NATIVE-LABEL: gpuc.func @asserts(%n: i32) kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "__gpuc_launch_asserts", state, launch_entry, prints, shared = 0>} {
// NATIVE-LABEL: gpuc.func @prints(%n: i32) kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "__gpuc_launch_prints", state, launch_entry, prints, shared = 0>} {
// NATIVE-LABEL: gpuc.func @quiet(%n: i32) kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "__gpuc_launch_quiet", state, launch_entry, shared = 0>} {
// SPIRV-LABEL: gpuc.func @asserts(%n: i32) kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "asserts", cconv = "spir_kernel", errors = {1 = "{{.*}}finalize_kernels.mlir:78:5: assertion failed: n is negative"}, prints, shared = 0>} {
// SPIRV-LABEL: gpuc.func @prints(%n: i32) kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "prints", cconv = "spir_kernel", prints, shared = 0>} {
// SPIRV-LABEL: gpuc.func @quiet(%n: i32) kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "quiet", cconv = "spir_kernel", shared = 0>} {
builtin.module attributes {gpuc.entrypoints = [@asserts, @prints, @quiet]} {
  gpuc.func @asserts(%n: i32) kernel {
    gpuc.call @check(%n) : (i32) -> ()
    gpuc.return
  }
  gpuc.func @prints(%n: i32) kernel {
    gpuc.call @say(%n) : (i32) -> ()
    gpuc.return
  }
  gpuc.func @quiet(%n: i32) kernel {
    gpuc.return
  }
  gpuc.func private @check(%n: i32) helper {
    %zero = arith.constant 0 : i32
    %ok = arith.cmpi sge, %n, %zero : i32
    cf.assert %ok, "n is negative"
    gpuc.return
  }
  gpuc.func private @say(%n: i32) helper {
    gpuc.printf "n = %d\0A" %n : i32
    gpuc.return
  }
}

// -----

// Each kernel's `errors` lists only the asserts it can report: ids are the
// module's (in module order), a helper's assert is listed for every kernel
// that calls it, and an assert only an indirect call reaches is left out
// (an address-taken function's asserts trap; its caller takes no record
// for it).
// CHECK-LABEL: gpuc.func @first(%n: i32) kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "first", cconv = "ptx_kernel", errors = {1 = "{{.*}}: assertion failed: first's own", 3 = "{{.*}}: assertion failed: shared"}, prints, shared = 0>} {
// CHECK-LABEL: gpuc.func @second(%n: i32) kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "second", cconv = "ptx_kernel", errors = {3 = "{{.*}}: assertion failed: shared"}, prints, shared = 0>} {
// CHECK-LABEL: gpuc.func @third(%n: i32) kernel attributes {gpuc.finalized = #gpuc.finalized<symbol = "third", cconv = "ptx_kernel", prints, shared = 0>} {
builtin.module attributes {gpuc.entrypoints = [@first, @second, @third]} {
  gpuc.func @first(%n: i32) kernel {
    %zero = arith.constant 0 : i32
    %ok = arith.cmpi sge, %n, %zero : i32
    cf.assert %ok, "first's own"
    gpuc.call @shared(%n) : (i32) -> ()
    gpuc.return
  }
  gpuc.func @second(%n: i32) kernel {
    gpuc.call @shared(%n) : (i32) -> ()
    gpuc.return
  }
  gpuc.func @third(%n: i32) kernel {
    %f = gpuc.func_addr @trapping : !gpuc.funcptr<(i32) -> ()>
    gpuc.call_indirect %f(%n) : !gpuc.funcptr<(i32) -> ()>
    gpuc.return
  }
  gpuc.func private @trapping(%n: i32) helper {
    %zero = arith.constant 0 : i32
    %ok = arith.cmpi sgt, %n, %zero : i32
    cf.assert %ok, "trapping"
    gpuc.return
  }
  gpuc.func private @shared(%n: i32) helper {
    %zero = arith.constant 0 : i32
    %ok = arith.cmpi ne, %n, %zero : i32
    cf.assert %ok, "shared"
    gpuc.return
  }
}
