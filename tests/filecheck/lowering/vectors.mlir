// A 1-D vector<NxT> is LLVM's <N x T>; arith ops work on it element by
// element, memory through a pointer to vectors is one vector load or store,
// and the vector ops become insertelement, extractelement, shufflevector and
// llvm.fma.
// RUN: gpuc-opt %s --split-input-file -t 'llvm{target=native stage=link}' | FileCheck %s
// RUN: gpuc-opt %s --split-input-file -t 'llvm{target=spirv stage=link}' | FileCheck %s --check-prefix=SPIRV

// CHECK-LABEL: define void @memory(ptr %p)
// CHECK: %[[V:.+]] = load <4 x float>, ptr %{{.+}}, align 16
// CHECK: %[[S:.+]] = fadd contract <4 x float> %[[V]], <float 1.500000e+00, float -2.000000e+00, float 2.500000e-01, float 8.000000e+00>
// CHECK: store <4 x float> %[[S]], ptr %{{.+}}, align 16
// SPIRV-LABEL: define spir_func void @memory(ptr addrspace(1) %p)
// SPIRV: load <4 x float>, ptr addrspace(1) %{{.+}}, align 16
gpuc.func @memory(%p: !gpuc.ptr<vector<4xf32>, global>) helper {
  %i = arith.constant 1 : index
  %v = gpuc.load %p[%i] : !gpuc.ptr<vector<4xf32>, global>
  %c = arith.constant dense<[1.5, -2.0, 0.25, 8.0]> : vector<4xf32>
  %s = arith.addf %v, %c : vector<4xf32>
  gpuc.store %s, %p[%i] : !gpuc.ptr<vector<4xf32>, global>
  gpuc.return
}

// -----

// A broadcast is an insertelement and a zero-mask shuffle.
// CHECK-LABEL: define <4 x i32> @broadcast(i32 %x)
// CHECK: %[[E:.+]] = insertelement <4 x i32> undef, i32 %x, i32 0
// CHECK: shufflevector <4 x i32> %[[E]], <4 x i32> undef, <4 x i32> zeroinitializer
gpuc.func @broadcast(%x: i32) -> vector<4xi32> helper {
  %v = vector.broadcast %x : i32 to vector<4xi32>
  gpuc.return %v : vector<4xi32>
}

// -----

// A static position is an i32 constant, a dynamic one the index itself.
// CHECK-LABEL: define float @extract_insert(<4 x float> %v, i64 %j)
// CHECK: %a = extractelement <4 x float> %v, i32 2
// CHECK: %w = insertelement <4 x float> %v, float %a, i64 %j
// CHECK: %b = extractelement <4 x float> %w, i64 %j
gpuc.func @extract_insert(%v: vector<4xf32>, %j: index) -> f32 helper {
  %a = vector.extract %v[2] : f32 from vector<4xf32>
  %w = vector.insert %a, %v[%j] : f32 into vector<4xf32>
  %b = vector.extract %w[%j] : f32 from vector<4xf32>
  gpuc.return %b : f32
}

// -----

// CHECK-LABEL: define <4 x float> @shuffle_fma(<4 x float> %a, <4 x float> %b)
// CHECK: %[[S:.+]] = shufflevector <4 x float> %a, <4 x float> %b, <4 x i32> <i32 7, i32 0, i32 5, i32 2>
// CHECK: call <4 x float> @llvm.fma.v4f32(<4 x float> %[[S]], <4 x float> %a, <4 x float> %b)
gpuc.func @shuffle_fma(%a: vector<4xf32>, %b: vector<4xf32>) -> vector<4xf32> helper {
  %s = vector.shuffle %a, %b [7, 0, 5, 2] : vector<4xf32>, vector<4xf32>
  %f = vector.fma %s, %a, %b : vector<4xf32>
  gpuc.return %f : vector<4xf32>
}

// -----

// Comparisons give <N x i1>; maximumf is llvm.maximum of the vector type.
// CHECK-LABEL: define <2 x double> @compare(<2 x double> %a, <2 x double> %b)
// CHECK: %[[L:.+]] = fcmp olt <2 x double> %a, %b
// CHECK: %[[M:.+]] = call <2 x double> @llvm.maximum.v2f64(<2 x double> %a, <2 x double> %b)
// CHECK: select <2 x i1> %[[L]], <2 x double> %a, <2 x double> %[[M]]
gpuc.func @compare(%a: vector<2xf64>, %b: vector<2xf64>) -> vector<2xf64> helper {
  %l = arith.cmpf olt, %a, %b : vector<2xf64>
  %m = arith.maximumf %a, %b : vector<2xf64>
  %r = arith.select %l, %a, %m : vector<2xi1>, vector<2xf64>
  gpuc.return %r : vector<2xf64>
}

// -----

// MLIR's extractelement and insertelement (gpuc/dialects/foreign/vector.py).
// CHECK-LABEL: define float @elements(<4 x float> %v, i64 %i, float %s)
// CHECK: %w = insertelement <4 x float> %v, float %s, i64 %i
// CHECK: %e = extractelement <4 x float> %w, i64 %i
gpuc.func @elements(%v: vector<4xf32>, %i: index, %s: f32) -> f32 helper {
  %w = vector.insertelement %s, %v[%i : index] : vector<4xf32>
  %e = vector.extractelement %w[%i : index] : vector<4xf32>
  gpuc.return %e : f32
}
