// RUN: gpuc-opt -p convert-parallel-loops-to-gpu --split-input-file --verify-diagnostics %s | filecheck %s

// A block x thread nest: trip counts before the launch, ids scaled inside.
// CHECK-LABEL: func.func @nest
// CHECK: %[[BLOCKS:.*]] = arith.ceildivsi %n, %c32 : index
// CHECK: %[[THREADS:.*]] = arith.constant 32 : index
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: "gpu.launch"(%[[BLOCKS]], %[[ONE]], %[[ONE]], %[[THREADS]], %[[ONE]], %[[ONE]])
// CHECK: ^{{.*}}(%[[BX:[^:]*]]: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %[[TX:[^:]*]]: index,
// CHECK: %[[I:.*]] = arith.muli %[[BX]], %c32 : index
// CHECK: arith.addi %[[I]], %[[TX]] : index
// CHECK: "gpu.terminator"()
// CHECK-NOT: scf.parallel
"func.func"() <{function_type = (memref<?xf32>, index) -> (), sym_name = "nest"}> ({
^bb0(%m: memref<?xf32>, %n: index):
  %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
  %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
  %c32 = "arith.constant"() <{value = 32 : index}> : () -> index
  "scf.parallel"(%c0, %c0, %n, %c32, %c32, %c1) <{operandSegmentSizes = array<i32: 2, 2, 2, 0>}> ({
  ^bb1(%i: index, %j: index):
    %k = "arith.addi"(%i, %j) : (index, index) -> index
    %v = "memref.load"(%m, %k) : (memref<?xf32>, index) -> f32
    "scf.reduce"() : () -> ()
  }) {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]} : (index, index, index, index, index, index) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

// A sequential dimension becomes scf.for inside the launch.
// CHECK-LABEL: func.func @sequential
// CHECK: "gpu.launch"
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1 {
// CHECK: memref.load
"func.func"() <{function_type = (memref<8x8xf32>) -> (), sym_name = "sequential"}> ({
^bb0(%m: memref<8x8xf32>):
  %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
  %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
  %c8 = "arith.constant"() <{value = 8 : index}> : () -> index
  "scf.parallel"(%c0, %c0, %c8, %c8, %c1, %c1) <{operandSegmentSizes = array<i32: 2, 2, 2, 0>}> ({
  ^bb1(%i: index, %j: index):
    %v = "memref.load"(%m, %i, %j) : (memref<8x8xf32>, index, index) -> f32
    "scf.reduce"() : () -> ()
  }) {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = sequential, map = (d0) -> (d0), bound = (d0) -> (d0)>]} : (index, index, index, index, index, index) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

// A bound the launch cannot know before it starts is a diagnostic.
"func.func"() <{function_type = (memref<?xf32>, index) -> (), sym_name = "inner_bound"}> ({
^bb0(%m: memref<?xf32>, %n: index):
  %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
  %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb1(%i: index):
    %ub = "arith.addi"(%i, %c1) : (index, index) -> index
    // CHECK: error: {{.*}}has a bound computed inside the mapped loop nest
    "scf.parallel"(%c0, %ub, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb2(%j: index):
      "scf.reduce"() : () -> ()
    }) {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]} : (index, index, index) -> ()
    "scf.reduce"() : () -> ()
  }) {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]} : (index, index, index) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

// A mapped loop under an scf.if inside the nest cannot join the launch: a
// diagnostic at that loop (it would otherwise stay an scf.parallel that no
// later stage lowers).
"func.func"() <{function_type = (memref<?xf32>, i1) -> (), sym_name = "guarded"}> ({
^bb0(%a: memref<?xf32>, %flag: i1):
  %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
  %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
  %c4 = "arith.constant"() <{value = 4 : index}> : () -> index
  "scf.parallel"(%c0, %c4, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    "scf.if"(%flag) ({
      // expected-error @+1 {{'scf.parallel' op is a mapped loop that is not directly in the body of the mapped loop around it (it is inside 'scf.if')}}
      "scf.parallel"(%c0, %c4, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
      ^bb1(%j: index):
        "scf.reduce"() : () -> ()
      }) {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]} : (index, index, index) -> ()
      "scf.yield"() : () -> ()
    }, {}) : (i1) -> ()
    "scf.reduce"() : () -> ()
  }) {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]} : (index, index, index) -> ()
  "func.return"() : () -> ()
}) : () -> ()
