func.func @k(%a: f32, %b: f32, %c: vector<4xf32>) attributes {gpu.kernel} {
  // An amdgpu op the import does not take (matrix cores).
  %d = "amdgpu.mfma"(%a, %b, %c) <{m = 16 : i32, n = 16 : i32, k = 4 : i32, blocks = 1 : i32}> : (f32, f32, vector<4xf32>) -> vector<4xf32>
  return
}
