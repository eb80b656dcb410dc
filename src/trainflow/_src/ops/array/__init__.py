"""Array ops: shapes, slicing, gathering, joining, layout, casts, creation, diagonals."""
