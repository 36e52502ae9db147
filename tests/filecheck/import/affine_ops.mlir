// The affine ops tiling leaves become arith on index: + and * as addi and
// muli, floordiv and ceildiv as floordivsi and ceildivsi, mod as a remsi made
// non-negative, min and max maps as minsi and maxsi of their results;
// semi-affine maps (a symbol divisor, as mlir-opt's loop-to-GPU passes
// write) too, and maps of constants fold to a constant.
// RUN: gpuc-opt -p import %s | filecheck %s
// RUN: gpuc compile %s --target native -o %t.o
// RUN: gpuc compile %s --target amdgpu -o %t.hsaco
// RUN: %if ptxas %{ gpuc compile %s --target ptx --validate -o %t.ptx %}
// RUN: %if spirv-val %{ gpuc compile %s --target spirv --validate -o %t.spv %}

#tile = affine_map<(d0)[s0, s1] -> ((d0 - s0) ceildiv s1)>
#min = affine_map<(d0)[s0] -> (32, s0 - d0)>

// CHECK-LABEL: gpuc.func @k(
// CHECK-SAME:    %[[M:.*]]: !gpuc.ptr<f32, global>, %[[N:.*]]: index, %[[S:.*]]: index)
// CHECK:         %[[X:.*]] = gpuc.thread_id x
// CHECK-NEXT:    %[[D:.*]] = arith.constant -1 : index
// CHECK-NEXT:    %[[NS:.*]] = arith.muli %[[S]], %[[D]] : index
// CHECK-NEXT:    %[[DIFF:.*]] = arith.addi %[[X]], %[[NS]] : index
// CHECK-NEXT:    %[[T:.*]] = arith.ceildivsi %[[DIFF]], %[[S]] : index
// CHECK:         %[[MD:.*]] = arith.subi
// CHECK:         %[[THIRTY:.*]] = arith.constant 32 : index
// CHECK-NEXT:    %[[MIN:.*]] = arith.minsi %[[THIRTY]], %{{.*}} : index
// CHECK:         %[[R:.*]] = arith.remsi %{{.*}}, %[[C5:.*]] : index
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[NEG:.*]] = arith.cmpi slt, %[[R]], %[[Z]] : index
// CHECK-NEXT:    %[[W:.*]] = arith.addi %[[R]], %[[C5]] : index
// CHECK-NEXT:    %[[MOD:.*]] = arith.select %[[NEG]], %[[W]], %[[R]] : index
// CHECK:         arith.floordivsi
// CHECK:         arith.maxsi
// The map of constants: (8 - 0) ceildiv 1 = 8.
// CHECK:         %{{.*}} = arith.constant 8 : index
// CHECK-NOT:     affine.
func.func @k(%m: memref<?xf32>, %n: index, %s: index) attributes {gpu.kernel} {
  %x = "gpu.thread_id"() {dimension = #gpu<dim x>} : () -> index
  %t = affine.apply #tile(%x)[%s, %s]
  %d = arith.subi %n, %t : index
  %lo = affine.min #min(%t)[%d]
  %md = affine.apply affine_map<(d0) -> (d0 mod 5)>(%lo)
  %hi = affine.max affine_map<(d0, d1) -> (d0 floordiv 2, d1 - 3)>(%md, %lo)
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %eight = affine.apply #tile(%c8)[%c0, %c1]
  %sum = arith.addi %hi, %eight : index
  %f = arith.index_cast %sum : index to i32
  %v = arith.sitofp %f : i32 to f32
  memref.store %v, %m[%x] : memref<?xf32>
  func.return
}
