// vector.shuffle of two 4-element halves into 8; MLIR 16 prints its mask as an
// attribute {mask = [...]}, 19 as a property <{mask = [...]}>.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%a: memref<8xi32>, %out: memref<8xi32>) kernel {
      %u = arith.constant dense<0> : vector<4xi32>
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c6 = arith.constant 6 : index
      %c7 = arith.constant 7 : index
      %e0 = memref.load %a[%c0] : memref<8xi32>
      %e1 = memref.load %a[%c1] : memref<8xi32>
      %e2 = memref.load %a[%c2] : memref<8xi32>
      %e3 = memref.load %a[%c3] : memref<8xi32>
      %e4 = memref.load %a[%c4] : memref<8xi32>
      %e5 = memref.load %a[%c5] : memref<8xi32>
      %e6 = memref.load %a[%c6] : memref<8xi32>
      %e7 = memref.load %a[%c7] : memref<8xi32>
      %x0 = vector.insertelement %e0, %u[%c0 : index] : vector<4xi32>
      %x1 = vector.insertelement %e1, %x0[%c1 : index] : vector<4xi32>
      %x2 = vector.insertelement %e2, %x1[%c2 : index] : vector<4xi32>
      %x3 = vector.insertelement %e3, %x2[%c3 : index] : vector<4xi32>
      %y0 = vector.insertelement %e4, %u[%c0 : index] : vector<4xi32>
      %y1 = vector.insertelement %e5, %y0[%c1 : index] : vector<4xi32>
      %y2 = vector.insertelement %e6, %y1[%c2 : index] : vector<4xi32>
      %y3 = vector.insertelement %e7, %y2[%c3 : index] : vector<4xi32>
      %s = vector.shuffle %x3, %y3 [7, 0, 5, 2, 4, 4, 1, 6] : vector<4xi32>, vector<4xi32>
      %r0 = vector.extractelement %s[%c0 : index] : vector<8xi32>
      memref.store %r0, %out[%c0] : memref<8xi32>
      %r1 = vector.extractelement %s[%c1 : index] : vector<8xi32>
      memref.store %r1, %out[%c1] : memref<8xi32>
      %r2 = vector.extractelement %s[%c2 : index] : vector<8xi32>
      memref.store %r2, %out[%c2] : memref<8xi32>
      %r3 = vector.extractelement %s[%c3 : index] : vector<8xi32>
      memref.store %r3, %out[%c3] : memref<8xi32>
      %r4 = vector.extractelement %s[%c4 : index] : vector<8xi32>
      memref.store %r4, %out[%c4] : memref<8xi32>
      %r5 = vector.extractelement %s[%c5 : index] : vector<8xi32>
      memref.store %r5, %out[%c5] : memref<8xi32>
      %r6 = vector.extractelement %s[%c6 : index] : vector<8xi32>
      memref.store %r6, %out[%c6] : memref<8xi32>
      %r7 = vector.extractelement %s[%c7 : index] : vector<8xi32>
      memref.store %r7, %out[%c7] : memref<8xi32>
      gpu.return
    }
  }
}
