// A bf16 atomic is a compare-exchange loop that computes in f32 and rounds
// once (lowering/bf16.py): on the 16 bits where the target has 16-bit
// atomics (native, ptx, amdgpu; LLVM widens them where the hardware must),
// on the aligned 32-bit word holding them on spirv (OpenCL's atomics are 32
// and 64 bits), the other half kept. An exchange is an xchg of the bits where
// 16-bit atomics exist. Every target compiles Inputs/bf16_atomic.mlir (global
// and shared memory), through ptxas and spirv-val where they are installed.
// RUN: gpuc-opt %s --split-input-file -t 'llvm{target=native stage=link}' | FileCheck %s
// RUN: gpuc-opt %s --split-input-file -t 'llvm{target=spirv stage=link}' | FileCheck %s --check-prefix=SPIRV
// RUN: gpuc compile %S/Inputs/bf16_atomic.mlir --target native -o %t.o
// RUN: gpuc compile %S/Inputs/bf16_atomic.mlir --target amdgpu -o %t.hsaco
// RUN: %if ptxas %{ gpuc compile %S/Inputs/bf16_atomic.mlir --target ptx --sm 75 --validate -o %t.ptx %}
// RUN: %if ptxas %{ gpuc compile %S/Inputs/bf16_atomic.mlir --target ptx --sm 90 --validate -o %t.ptx %}
// RUN: %if spirv-val %{ gpuc compile %S/Inputs/bf16_atomic.mlir --target spirv --validate -o %t.spv %}

// CHECK-LABEL: define {{.*}}i16 @add(ptr %a, i16 %v)
// CHECK:         %[[FIRST:.*]] = load i16, ptr %a, align 2
// CHECK:       bf16.cas.loop:
// CHECK-NEXT:    %[[OLD:.*]] = phi i16 [ %[[FIRST]], %{{.*}} ], [ %[[SEEN:.*]], %bf16.cas.loop ]
// CHECK:         fadd float
// CHECK:         %[[PAIR:.*]] = cmpxchg ptr %a, i16 %[[OLD]], i16 %{{.*}} monotonic monotonic
// CHECK-NEXT:    %[[SEEN]] = extractvalue { i16, i1 } %[[PAIR]], 0
// CHECK:       bf16.cas.done:
// CHECK-NEXT:    ret i16 %[[OLD]]

// SPIRV-LABEL: define {{.*}}i16 @add(ptr addrspace(1) %a, i16 %v)
// SPIRV:         %[[ADDR:.*]] = ptrtoint ptr addrspace(1) %a to i64
// SPIRV-NEXT:    %[[LOW:.*]] = and i64 %[[ADDR]], 2
// SPIRV-NEXT:    %[[BACK:.*]] = sub i64 0, %[[LOW]]
// SPIRV-NEXT:    %[[WORD:.*]] = getelementptr i8, ptr addrspace(1) %a, i64 %[[BACK]]
// SPIRV:         load i32, ptr addrspace(1) %[[WORD]], align 4
// SPIRV:       bf16.cas.loop:
// SPIRV:         lshr i32
// SPIRV:         fadd float
// SPIRV:         cmpxchg ptr addrspace(1) %[[WORD]], i32 %{{.*}}, i32 %{{.*}} syncscope("device") monotonic monotonic
gpuc.func @add(%a: !gpuc.ptr<bf16, global>, %v: bf16) -> bf16 helper {
  %o = gpuc.atomic_rmw add %a, %v : !gpuc.ptr<bf16, global>
  gpuc.return %o : bf16
}

// -----

// CHECK-LABEL: define {{.*}}i16 @max(ptr %a, i16 %v)
// CHECK:         call float @llvm.maxnum.f32
// CHECK:         cmpxchg ptr %a, i16
// SPIRV-LABEL: define {{.*}}i16 @max(
// SPIRV:         call {{.*}}float @llvm.maxnum.f32
// SPIRV:         cmpxchg ptr addrspace(1) %{{.*}}, i32
gpuc.func @max(%a: !gpuc.ptr<bf16, global>, %v: bf16) -> bf16 helper {
  %o = gpuc.atomic_rmw max %a, %v : !gpuc.ptr<bf16, global>
  gpuc.return %o : bf16
}

// -----

// CHECK-LABEL: define {{.*}}i16 @exchange(ptr %a, i16 %v)
// CHECK:         atomicrmw xchg ptr %a, i16 %v monotonic
// SPIRV-LABEL: define {{.*}}i16 @exchange(
// SPIRV-NOT:     atomicrmw
// SPIRV:         cmpxchg ptr addrspace(1) %{{.*}}, i32
gpuc.func @exchange(%a: !gpuc.ptr<bf16, global>, %v: bf16) -> bf16 helper {
  %o = gpuc.atomic_rmw exchange %a, %v : !gpuc.ptr<bf16, global>
  gpuc.return %o : bf16
}
