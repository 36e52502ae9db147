// A kernel with barriers (here through a helper) runs one thread per call:
// thread `thread` of the launch record, for each block of the range, then
// the executor's barrier once per block. The barrier op itself calls the
// function the state points to with its argument.
// RUN: gpuc-opt %s -t 'llvm{target=native stage=link}' | FileCheck %s

// CHECK-LABEL: define internal void @sync(ptr %state)
// CHECK: [[F:%.*]] = getelementptr inbounds i8, ptr %state, i64 104
// CHECK-NEXT: [[WAIT:%.*]] = load ptr, ptr [[F]], align 8
// CHECK-NEXT: [[A:%.*]] = getelementptr inbounds i8, ptr %state, i64 112
// CHECK-NEXT: [[ARG:%.*]] = load ptr, ptr [[A]], align 8
// CHECK-NEXT: call void [[WAIT]](ptr [[ARG]]) #{{[0-9]+}}
gpuc.func private @sync() helper {
  gpuc.barrier
  gpuc.return
}

gpuc.func @k(%p: !gpuc.ptr<f32, global>) kernel {
  gpuc.call @sync() : () -> ()
  gpuc.return
}

// CHECK-LABEL: define void @__gpuc_launch_k(ptr %launch, ptr %p)
// CHECK: getelementptr inbounds i8, ptr %launch, i64 88
// CHECK-NOT: thread.x.head
// CHECK: block.body:
// CHECK: call void @k(ptr %state, ptr %p)
// CHECK-NEXT: call void {{%.*}}(ptr {{%.*}}) #{{[0-9]+}}
// CHECK: attributes #{{[0-9]+}} = { convergent }
