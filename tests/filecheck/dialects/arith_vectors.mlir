// gpuc's arith dialect (gpuc/dialects/foreign/arith.py) reads and prints
// comparisons and selects of vectors as MLIR 16 to 22 do: a comparison of
// vector<NxT> gives vector<Nxi1>, and a select with a vector condition names
// the condition's type; the casts take vectors.
// RUN: gpuc-opt %s --split-input-file | filecheck %s
// RUN: gpuc-opt %s --split-input-file | gpuc-opt --split-input-file | filecheck %s
// RUN: gpuc-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: %if mlir-opt-16 %{ mlir-opt-16 --split-input-file %s | gpuc-opt --split-input-file | filecheck %s %}
// RUN: %if mlir-opt-22 %{ mlir-opt-22 --split-input-file %s | gpuc-opt --split-input-file | filecheck %s %}

// CHECK-LABEL: func.func @select
// CHECK:         %[[C:.*]] = arith.cmpf olt, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT:    %[[S:.*]] = arith.select %[[C]], %{{.*}}, %{{.*}} : vector<4xi1>, vector<4xf32>
// CHECK-NEXT:    %{{.*}} = arith.select %{{.*}}, %[[S]], %{{.*}} : vector<4xf32>
// CHECK-NEXT:    %[[E:.*]] = arith.extui %[[C]] : vector<4xi1> to vector<4xi32>
// CHECK-NEXT:    %{{.*}} = arith.cmpi slt, %[[E]], %[[E]] : vector<4xi32>
// GENERIC: "arith.cmpf"(%{{.*}}, %{{.*}}) <{{{.*}}}> : (vector<4xf32>, vector<4xf32>) -> vector<4xi1>
// GENERIC: "arith.select"(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<4xi1>, vector<4xf32>, vector<4xf32>) -> vector<4xf32>
// GENERIC: "arith.cmpi"(%{{.*}}, %{{.*}}) <{predicate = 2 : i64}> : (vector<4xi32>, vector<4xi32>) -> vector<4xi1>
func.func @select(%a: vector<4xf32>, %b: vector<4xf32>, %s: i1) -> vector<4xi1> {
  %c = arith.cmpf olt, %a, %b : vector<4xf32>
  %r = arith.select %c, %a, %b : vector<4xi1>, vector<4xf32>
  %q = arith.select %s, %r, %b : vector<4xf32>
  %e = arith.extui %c : vector<4xi1> to vector<4xi32>
  %l = arith.cmpi slt, %e, %e : vector<4xi32>
  return %l : vector<4xi1>
}

// -----

// CHECK-LABEL: func.func @casts
// CHECK:         arith.sitofp %{{.*}} : vector<2xi32> to vector<2xbf16>
// CHECK-NEXT:    arith.fptoui %{{.*}} : vector<2xbf16> to vector<2xi16>
// CHECK-NEXT:    arith.trunci %{{.*}} : vector<2xi16> to vector<2xi8>
// CHECK-NEXT:    arith.extsi %{{.*}} : vector<2xi8> to vector<2xi64>
// CHECK-NEXT:    arith.index_cast %{{.*}} : vector<2xi64> to vector<2xindex>
func.func @casts(%n: vector<2xi32>) -> vector<2xindex> {
  %f = arith.sitofp %n : vector<2xi32> to vector<2xbf16>
  %u = arith.fptoui %f : vector<2xbf16> to vector<2xi16>
  %t = arith.trunci %u : vector<2xi16> to vector<2xi8>
  %e = arith.extsi %t : vector<2xi8> to vector<2xi64>
  %i = arith.index_cast %e : vector<2xi64> to vector<2xindex>
  return %i : vector<2xindex>
}
