// Vector casts (tests/filecheck/lowering/vector_casts.mlir), compiled for
// every target: arith casts on vectors, bf16 vectors, vector.bitcast.
gpuc.func @casts(%xs: !gpuc.ptr<vector<4xf32>, global>, %bs: !gpuc.ptr<vector<4xbf16>, global>,
                 %ns: !gpuc.ptr<vector<4xi32>, global>, %hs: !gpuc.ptr<vector<4xf16>, global>) kernel {
  %i = gpuc.global_id x
  %x = gpuc.load %xs[%i] : !gpuc.ptr<vector<4xf32>, global>
  %b = gpuc.load %bs[%i] : !gpuc.ptr<vector<4xbf16>, global>
  %n = gpuc.load %ns[%i] : !gpuc.ptr<vector<4xi32>, global>
  %h = gpuc.load %hs[%i] : !gpuc.ptr<vector<4xf16>, global>
  %eb = arith.extf %b : vector<4xbf16> to vector<4xf32>
  %eh = arith.extf %h : vector<4xf16> to vector<4xf32>
  %sum = arith.addf %eb, %eh : vector<4xf32>
  %tb = arith.truncf %sum : vector<4xf32> to vector<4xbf16>
  %ib = arith.sitofp %n : vector<4xi32> to vector<4xbf16>
  %ub = arith.uitofp %n : vector<4xi32> to vector<4xbf16>
  %m = arith.maximumf %tb, %ib : vector<4xbf16>
  %m2 = arith.minimumf %m, %ub : vector<4xbf16>
  gpuc.store %m2, %bs[%i] : !gpuc.ptr<vector<4xbf16>, global>
  %th = arith.truncf %x : vector<4xf32> to vector<4xf16>
  gpuc.store %th, %hs[%i] : !gpuc.ptr<vector<4xf16>, global>
  %fs = arith.fptosi %x : vector<4xf32> to vector<4xi32>
  %fu = arith.fptoui %eb : vector<4xf32> to vector<4xi32>
  %t16 = arith.trunci %fs : vector<4xi32> to vector<4xi16>
  %s32 = arith.extsi %t16 : vector<4xi16> to vector<4xi32>
  %u32 = arith.extui %t16 : vector<4xi16> to vector<4xi32>
  %iv = arith.index_cast %fu : vector<4xi32> to vector<4xindex>
  %back = arith.index_cast %iv : vector<4xindex> to vector<4xi32>
  %a = arith.addi %s32, %u32 : vector<4xi32>
  %c = arith.addi %a, %back : vector<4xi32>
  %bits = vector.bitcast %x : vector<4xf32> to vector<4xi32>
  %d = arith.xori %c, %bits : vector<4xi32>
  gpuc.store %d, %ns[%i] : !gpuc.ptr<vector<4xi32>, global>
  gpuc.return
}
