// arith casts on 1-D vectors are LLVM's vector casts (gpuc's arith dialect,
// gpuc/dialects/foreign/arith.py, takes them as MLIR does); a bf16
// vector is `<N x i16>` of its bits, widened and rounded element by element
// (lowering/bf16.py); vector.bitcast is LLVM's bitcast. Every target compiles
// Inputs/vector_casts.mlir, through ptxas and spirv-val where installed.
// RUN: gpuc-opt %s --split-input-file -t 'llvm{target=native stage=link}' | FileCheck %s
// RUN: gpuc compile %S/Inputs/vector_casts.mlir --target native -o %t.o
// RUN: gpuc compile %S/Inputs/vector_casts.mlir --target amdgpu -o %t.hsaco
// RUN: %if ptxas %{ gpuc compile %S/Inputs/vector_casts.mlir --target ptx --validate -o %t.ptx %}
// RUN: %if spirv-val %{ gpuc compile %S/Inputs/vector_casts.mlir --target spirv --validate -o %t.spv %}

// CHECK-LABEL: define <4 x float> @int_to_float(<4 x i32> %n)
// CHECK:         %[[S:.*]] = sitofp <4 x i32> %n to <4 x float>
// CHECK:         %[[U:.*]] = uitofp <4 x i32> %n to <4 x float>
gpuc.func @int_to_float(%n: vector<4xi32>) -> vector<4xf32> helper {
  %s = arith.sitofp %n : vector<4xi32> to vector<4xf32>
  %u = arith.uitofp %n : vector<4xi32> to vector<4xf32>
  %r = arith.addf %s, %u : vector<4xf32>
  gpuc.return %r : vector<4xf32>
}

// -----

// CHECK-LABEL: define <2 x i64> @ints(<2 x i32> %n, <2 x float> %x)
// CHECK:         fptosi <2 x float> %x to <2 x i32>
// CHECK:         fptoui <2 x float> %x to <2 x i32>
// CHECK:         trunc <2 x i32> %{{.*}} to <2 x i16>
// CHECK:         sext <2 x i16> %{{.*}} to <2 x i32>
// CHECK:         zext <2 x i16> %{{.*}} to <2 x i32>
// CHECK:         sext <2 x i32> %{{.*}} to <2 x i64>
gpuc.func @ints(%n: vector<2xi32>, %x: vector<2xf32>) -> vector<2xi64> helper {
  %s = arith.fptosi %x : vector<2xf32> to vector<2xi32>
  %u = arith.fptoui %x : vector<2xf32> to vector<2xi32>
  %t = arith.trunci %s : vector<2xi32> to vector<2xi16>
  %e = arith.extsi %t : vector<2xi16> to vector<2xi32>
  %z = arith.extui %t : vector<2xi16> to vector<2xi32>
  %a = arith.addi %e, %z : vector<2xi32>
  %b = arith.addi %a, %u : vector<2xi32>
  %i = arith.index_cast %b : vector<2xi32> to vector<2xindex>
  %w = arith.index_cast %i : vector<2xindex> to vector<2xi64>
  gpuc.return %w : vector<2xi64>
}

// -----

// bf16 to f32 is a shift of the bits; f32 to bf16 rounds to nearest-even on
// the top half (0x7FFF plus the lowest kept bit), element by element.
// CHECK-LABEL: define <4 x i16> @bf16s(<4 x i16> %b, <4 x i16> %c)
// CHECK:         %[[WB:.*]] = zext <4 x i16> %b to <4 x i32>
// CHECK-NEXT:    %[[SB:.*]] = shl <4 x i32> %[[WB]], splat (i32 16)
// CHECK-NEXT:    bitcast <4 x i32> %[[SB]] to <4 x float>
// CHECK:         fadd <4 x float>
// CHECK:         add <4 x i32> splat (i32 32767)
// CHECK:         trunc <4 x i32> %{{.*}} to <4 x i16>
// CHECK:         xor <4 x i16> %{{.*}}, splat (i16 -32768)
gpuc.func @bf16s(%b: vector<4xbf16>, %c: vector<4xbf16>) -> vector<4xbf16> helper {
  %s = arith.addf %b, %c : vector<4xbf16>
  %n = arith.negf %s : vector<4xbf16>
  gpuc.return %n : vector<4xbf16>
}

// -----

// CHECK-LABEL: define <2 x i32> @bitcast(<4 x i16> %b)
// CHECK-NEXT:  entry:
// CHECK-NEXT:    %[[R:.*]] = bitcast <4 x i16> %b to <2 x i32>
// CHECK-NEXT:    ret <2 x i32> %[[R]]
gpuc.func @bitcast(%b: vector<4xbf16>) -> vector<2xi32> helper {
  %r = vector.bitcast %b : vector<4xbf16> to vector<2xi32>
  gpuc.return %r : vector<2xi32>
}
