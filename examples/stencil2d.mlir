// stencil2d: one step of a 5-point stencil on an ny x nx grid of f32 (row-major):
//   out[y][x] = 0.5 * in[y][x] + 0.125 * (in[y][x-1] + in[y][x+1] + in[y-1][x] + in[y+1][x])
// inside the grid, and out[y][x] = in[y][x] on its border.
// Launch: stencil2d(in: f32*, out: f32*, nx: i32, ny: i32) with 2-D blocks, x
// the column: block = (16, 16), grid = (ceil(nx / 16), ceil(ny / 16)).
gpuc.func @stencil2d(%in: !gpuc.ptr<f32, global>, %out: !gpuc.ptr<f32, global>,
                     %nx: i32, %ny: i32) kernel {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %half = arith.constant 0.5 : f32
  %eighth = arith.constant 0.125 : f32
  %x = gpuc.global_id x
  %y = gpuc.global_id y
  %width = arith.index_cast %nx : i32 to index
  %height = arith.index_cast %ny : i32 to index
  %x_in = arith.cmpi ult, %x, %width : index
  %y_in = arith.cmpi ult, %y, %height : index
  %in_grid = arith.andi %x_in, %y_in : i1
  scf.if %in_grid {
    %row = arith.muli %y, %width : index
    %c = arith.addi %row, %x : index
    %center = gpuc.load %in[%c] : !gpuc.ptr<f32, global>
    %last_x = arith.subi %width, %c1 : index
    %last_y = arith.subi %height, %c1 : index
    %left_edge = arith.cmpi eq, %x, %c0 : index
    %right_edge = arith.cmpi eq, %x, %last_x : index
    %top_edge = arith.cmpi eq, %y, %c0 : index
    %bottom_edge = arith.cmpi eq, %y, %last_y : index
    %e1 = arith.ori %left_edge, %right_edge : i1
    %e2 = arith.ori %top_edge, %bottom_edge : i1
    %border = arith.ori %e1, %e2 : i1
    %value = scf.if %border -> (f32) {
      scf.yield %center : f32
    } else {
      %l = arith.subi %c, %c1 : index
      %r = arith.addi %c, %c1 : index
      %u = arith.subi %c, %width : index
      %d = arith.addi %c, %width : index
      %left = gpuc.load %in[%l] : !gpuc.ptr<f32, global>
      %right = gpuc.load %in[%r] : !gpuc.ptr<f32, global>
      %up = gpuc.load %in[%u] : !gpuc.ptr<f32, global>
      %down = gpuc.load %in[%d] : !gpuc.ptr<f32, global>
      %s1 = arith.addf %left, %right : f32
      %s2 = arith.addf %up, %down : f32
      %neighbours = arith.addf %s1, %s2 : f32
      %own = arith.mulf %half, %center : f32
      %spread = arith.mulf %eighth, %neighbours : f32
      %sum = arith.addf %own, %spread : f32
      scf.yield %sum : f32
    }
    gpuc.store %value, %out[%c] : !gpuc.ptr<f32, global>
  }
  gpuc.return
}
