# The module gpuc.to_mlir makes: standard dialects, arrays as buffer + offset
# + shape + strides viewed by memref.reinterpret_cast (the last stride 1),
# variables as SSA values, break as a flag in an scf.while.
# RUN: %python %s | filecheck %s

import gpuc
from gpuc import Array, f32, i32


@gpuc.kernel
def saxpy(a: f32, x: Array[f32, 1], y: Array[f32, 1], n: i32):
    i = gpuc.global_id(0)
    if i < n:
        y[i] = a * x[i] + y[i]


# CHECK-LABEL: func.func @saxpy(%a: f32, %x: memref<?xf32>, %x_offset: index, %x_shape0: index, %x_stride0: index, %y: memref<?xf32>
# CHECK-SAME:    attributes {gpu.kernel}
# CHECK:         %[[X:.*]] = memref.reinterpret_cast %x to offset: [%x_offset], sizes: [%x_shape0], strides: [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
# CHECK:         %[[I:.*]] = "gpu.global_id"() <{dimension = #gpu<dim x>}> : () -> index
# CHECK:         %[[N:.*]] = arith.index_cast %n : i32 to index
# CHECK-NEXT:    %[[IN:.*]] = arith.cmpi slt, %[[I]], %[[N]] : index
# CHECK-NEXT:    scf.if %[[IN]] {
# CHECK-NEXT:      memref.load %[[X]][%[[I]]]
# CHECK-NEXT:      arith.mulf %a
# CHECK-NOT:     else
# CHECK:         func.return
print(gpuc.to_mlir(saxpy))


@gpuc.kernel
def first_negative(x: Array[f32, 1], found: Array[i32, 1]):
    k = 0
    while k < x.shape[0]:
        if x[k] < 0.0:
            break
        k += 1
    found[0] = i32(k)


# CHECK-LABEL: func.func @first_negative(
# CHECK:         %{{.*}}, %{{.*}} = scf.while (%[[K:.*]] = %{{.*}}, %[[BROKE:.*]] = %{{.*}}) : (index, i1) -> (index, i1) {
# CHECK-NEXT:      %{{.*}} = arith.constant true
# CHECK-NEXT:      %[[GO:.*]] = arith.xori %[[BROKE]], %{{.*}} : i1
# CHECK-NEXT:      %{{.*}} = scf.if %[[GO]] -> (i1) {
# CHECK:           scf.condition(%{{.*}}) %[[K]], %[[BROKE]] : index, i1
# CHECK:         } do {
# CHECK:           scf.if %{{.*}} -> (i1) {
# CHECK:           scf.yield %{{.*}}, %{{.*}} : index, i1
print(gpuc.to_mlir(first_negative))


@gpuc.kernel
def signed_zeros(x: Array[f32, 1]):
    x[0] = 0.0
    x[1] = -0.0
    x[2] = 0.0


# Each literal its own constant: 0.0 and -0.0 are equal in Python, not here.
# CHECK-LABEL: func.func @signed_zeros(
# CHECK:         arith.constant 0.000000e+00 : f32
# CHECK:         arith.constant -0.000000e+00 : f32
# CHECK:         arith.constant 0.000000e+00 : f32
print(gpuc.to_mlir(signed_zeros))


@gpuc.func
def head(x: Array[f32, 1], k: i32) -> f32:
    return x[k]


@gpuc.kernel
def via_address(x: Array[f32, 1], out: Array[f32, 1]):
    f = gpuc.address(head, inline="never")
    out[0] = f(x, i32(1))


# gpuc.address of a function of arrays: the pointer's signature is the
# function's own, each array a memref and its offset, shape and strides.
# CHECK-LABEL: func.func private @head(%x: memref<?xf32>, %x_offset: index, %x_shape0: index, %x_stride0: index, %k: i32) -> f32
# CHECK-LABEL: func.func @via_address(
# CHECK:         %[[F:.*]] = gpuc.deferred_addr @head #gpuc.job<helper, no_inline> : !gpuc.funcptr<(memref<?xf32>, index, index, index, i32) -> f32>
# CHECK:         gpuc.call_indirect %[[F]](%x, %x_offset, %x_shape0, %{{.*}}, %{{.*}}) : !gpuc.funcptr<(memref<?xf32>, index, index, index, i32) -> f32>
print(gpuc.to_mlir(via_address))
