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
