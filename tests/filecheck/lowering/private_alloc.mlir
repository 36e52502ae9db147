// gpuc.private_alloc is an entry-block alloca of the array, in the data
// layout's stack space (amdgpu: 5), cast to the local space where that
// differs (ptx: generic allocas, local space 5).
// RUN: gpuc-opt %s -t 'llvm{target=native stage=link}' | FileCheck %s
// RUN: gpuc-opt %s -t 'llvm{target=ptx stage=link}' | FileCheck %s --check-prefix=PTX
// RUN: gpuc-opt %s -t 'llvm{target=amdgpu stage=link}' | FileCheck %s --check-prefix=AMDGPU
// RUN: gpuc-opt %s -t 'llvm{target=spirv stage=link}' | FileCheck %s --check-prefix=SPIRV

// CHECK-LABEL: define float @scratch(float %x, i64 %i)
// CHECK-NEXT: entry:
// CHECK-NEXT: %tmp = alloca [16 x float], align 4
// CHECK: getelementptr inbounds float, ptr %tmp, i64 %i
// PTX-LABEL: define float @scratch(float %x, i64 %i)
// PTX-NEXT: entry:
// PTX-NEXT: %[[SLOT:.+]] = alloca [16 x float], align 4
// PTX: %tmp = addrspacecast ptr %[[SLOT]] to ptr addrspace(5)
// PTX: getelementptr inbounds float, ptr addrspace(5) %tmp, i64 %i
// AMDGPU-LABEL: define float @scratch(float %x, i64 %i)
// AMDGPU-NEXT: entry:
// AMDGPU-NEXT: %tmp = alloca [16 x float], align 4, addrspace(5)
// AMDGPU-NOT: addrspacecast
// SPIRV-LABEL: define spir_func float @scratch(float %x, i64 %i)
// SPIRV-NEXT: entry:
// SPIRV-NEXT: %tmp = alloca [16 x float], align 4
gpuc.func @scratch(%x: f32, %i: index) -> f32 helper {
  %c0 = arith.constant 0 : index
  %tmp = gpuc.private_alloc 16 : !gpuc.ptr<f32, local>
  gpuc.store %x, %tmp[%i] : !gpuc.ptr<f32, local>
  %v = gpuc.load %tmp[%c0] : !gpuc.ptr<f32, local>
  gpuc.return %v : f32
}
