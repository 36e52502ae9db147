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

// A bound computed inside the nest with no constant bound on its trip count
// (the launch is sized before the loops run) is a diagnostic at the loop.
"func.func"() <{function_type = (memref<?xf32>, index) -> (), sym_name = "inner_bound"}> ({
^bb0(%m: memref<?xf32>, %n: index):
  %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
  %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb1(%i: index):
    %ub = "arith.addi"(%i, %c1) : (index, index) -> index
    // CHECK: error: {{.*}}has a bound computed inside the mapped loop nest, and gpuc cannot bound its trip count by a constant, which the launch needs (it is sized before the loops run); give it a constant lower bound and step and an upper bound that is a constant or an affine.min/arith.minsi with one (what loop tiling writes), or compute its bounds before the outermost mapped scf.parallel
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

// -----

// A tiled nest: the tile's bound min(4, n - i) is computed inside; its
// thread dimension is sized by the tile (4) and its loop is a grid-stride
// scf.for from the thread id to the bound by the block size, correct for any
// launch size. The sequential dimension reads its inner bound in the kernel.
// CHECK-LABEL: func.func @tiled
// CHECK:      %[[BLOCKS:.*]] = arith.ceildivsi %n, %c4 : index
// CHECK:      %[[TILE:.*]] = arith.constant 4 : index
// CHECK:      "gpu.launch"(%[[BLOCKS]], %{{.*}}, %{{.*}}, %[[TILE]], %{{.*}}, %{{.*}})
// CHECK:      ^{{.*}}(%[[BX:[^:]*]]: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %[[TX:[^:]*]]: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %[[BDX:[^:]*]]: index,
// CHECK:      %[[I:.*]] = arith.muli %[[BX]], %c4 : index
// CHECK:      %[[UB:.*]] = arith.minsi %c4, %{{.*}} : index
// CHECK-NEXT: scf.for %[[J:.*]] = %[[TX]] to %[[UB]] step %[[BDX]] {
// CHECK:        scf.for %{{.*}} = %c0 to %[[UB]] step %c1 {
// CHECK:          arith.addi %[[I]], %[[J]] : index
"func.func"() <{function_type = (memref<?xf32>, index) -> (), sym_name = "tiled"}> ({
^bb0(%m: memref<?xf32>, %n: index):
  %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
  %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
  %c4 = "arith.constant"() <{value = 4 : index}> : () -> index
  "scf.parallel"(%c0, %n, %c4) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb1(%i: index):
    %left = "arith.subi"(%n, %i) : (index, index) -> index
    %ub = "arith.minsi"(%c4, %left) : (index, index) -> index
    "scf.parallel"(%c0, %c0, %ub, %ub, %c1, %c1) <{operandSegmentSizes = array<i32: 2, 2, 2, 0>}> ({
    ^bb2(%j: index, %k: index):
      %e = "arith.addi"(%i, %j) : (index, index) -> index
      %v = "memref.load"(%m, %e) : (memref<?xf32>, index) -> f32
      "scf.reduce"() : () -> ()
    }) {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = sequential, map = (d0) -> (d0), bound = (d0) -> (d0)>]} : (index, index, index, index, index, index) -> ()
    "scf.reduce"() : () -> ()
  }) {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]} : (index, index, index) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

// Two loops of a nest on one hardware dimension with different trip counts:
// the first sizes it (8), the second is a grid-stride loop over it.
// CHECK-LABEL: func.func @twice_mapped
// CHECK:      %c12 = arith.constant 12 : index
// CHECK:      %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK:      "gpu.launch"(%{{.*}}, %{{.*}}, %{{.*}}, %[[EIGHT]], %{{.*}}, %{{.*}})
// CHECK:      ^{{.*}}(%{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %[[TX:[^:]*]]: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %[[BDX:[^:]*]]: index,
// CHECK:      memref.store %{{.*}}, %m[%[[TX]]]
// CHECK:      scf.for %[[J:.*]] = %[[TX]] to %c12 step %[[BDX]] {
// CHECK-NEXT:   memref.store %{{.*}}, %m[%[[J]]]
"func.func"() <{function_type = (memref<?xf32>, f32) -> (), sym_name = "twice_mapped"}> ({
^bb0(%m: memref<?xf32>, %x: f32):
  %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
  %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
  %c8 = "arith.constant"() <{value = 8 : index}> : () -> index
  %c12 = "arith.constant"() <{value = 12 : index}> : () -> index
  "scf.parallel"(%c0, %c1, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb1(%b: index):
    "scf.parallel"(%c0, %c8, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb2(%i: index):
      "memref.store"(%x, %m, %i) : (f32, memref<?xf32>, index) -> ()
      "scf.reduce"() : () -> ()
    }) {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]} : (index, index, index) -> ()
    "scf.parallel"(%c0, %c12, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb2(%j: index):
      "memref.store"(%x, %m, %j) : (f32, memref<?xf32>, index) -> ()
      "scf.reduce"() : () -> ()
    }) {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]} : (index, index, index) -> ()
    "scf.reduce"() : () -> ()
  }) {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]} : (index, index, index) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

// A mapped loop inside an unmapped scf.parallel: the unmapped loop is host
// code (as an scf.for would be), and the launch runs once per iteration.
// CHECK-LABEL: func.func @host_loop
// CHECK:      "scf.parallel"
// CHECK-NEXT: ^{{.*}}(%i: index):
// CHECK:        "gpu.launch"
// CHECK:          memref.load %m[%i, %{{.*}}]
"func.func"() <{function_type = (memref<4x8xf32>) -> (), sym_name = "host_loop"}> ({
^bb0(%m: memref<4x8xf32>):
  %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
  %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
  %c4 = "arith.constant"() <{value = 4 : index}> : () -> index
  %c8 = "arith.constant"() <{value = 8 : index}> : () -> index
  "scf.parallel"(%c0, %c4, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    "scf.parallel"(%c0, %c8, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb1(%j: index):
      %v = "memref.load"(%m, %i, %j) : (memref<4x8xf32>, index, index) -> f32
      "scf.reduce"() : () -> ()
    }) {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]} : (index, index, index) -> ()
    "scf.reduce"() : () -> ()
  }) : (index, index, index) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

// The pass alone reads a tile's affine.min bound as written (the import
// expands it into arith first): sized by its constant result, 8.
// CHECK-LABEL: func.func @affine_tile
// CHECK:      arith.ceildivsi %n, %c8 : index
// CHECK-NEXT: %[[TILE:.*]] = arith.constant 8 : index
// CHECK:      "gpu.launch"(%{{.*}}, %{{.*}}, %{{.*}}, %[[TILE]], %{{.*}}, %{{.*}})
// CHECK:      %[[UB:.*]] = affine.min
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %[[UB]] step
"func.func"() <{function_type = (memref<?xf32>, index) -> (), sym_name = "affine_tile"}> ({
^bb0(%m: memref<?xf32>, %n: index):
  %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
  %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
  %c8 = "arith.constant"() <{value = 8 : index}> : () -> index
  "scf.parallel"(%c0, %n, %c8) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb1(%i: index):
    %ub = "affine.min"(%i, %n) <{map = affine_map<(d0)[s0] -> (8, s0 - d0)>}> : (index, index) -> index
    "scf.parallel"(%c0, %ub, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb2(%j: index):
      %e = "arith.addi"(%i, %j) : (index, index) -> index
      %v = "memref.load"(%m, %e) : (memref<?xf32>, index) -> f32
      "scf.reduce"() : () -> ()
    }) {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]} : (index, index, index) -> ()
    "scf.reduce"() : () -> ()
  }) {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]} : (index, index, index) -> ()
  "func.return"() : () -> ()
}) : () -> ()
