//! Engine and wire values in the reference's vocabulary, one function for each shape whichever
//! side it comes from: positions as [`Cell`]s ([`cell`], [`cells`], and back with [`pos`]),
//! groups as `(colour, cells)` ([`groups_of`]), falls as `(from, to)` ([`falls_of`]), spawns as
//! `(cell, colour)` ([`spawns_of`]) and swaps as `(a, b)` ([`swaps_of`]), for the engine's types
//! and the wire's alike; a wire board as a [`Grid`] ([`grid`]).

use matchgrid::{engine, proto};

use super::{Cell, Grid};

/// A wire board as a reference grid, taken as it is ([`Grid::of_wire`]).
pub fn grid(board: &proto::Board) -> Grid {
    Grid::of_wire(board)
}

/// A position of the engine or of the wire (a wire field must be set).
pub trait ToCell {
    fn to_cell(&self) -> Cell;
}

impl ToCell for engine::Position {
    fn to_cell(&self) -> Cell {
        (self.row, self.col)
    }
}

impl ToCell for proto::Position {
    fn to_cell(&self) -> Cell {
        (self.row, self.col)
    }
}

impl ToCell for Option<proto::Position> {
    fn to_cell(&self) -> Cell {
        self.as_ref().expect("position present").to_cell()
    }
}

impl<T: ToCell + ?Sized> ToCell for &T {
    fn to_cell(&self) -> Cell {
        (**self).to_cell()
    }
}

/// The `(row, col)` of an engine position or a (required) wire position.
pub fn cell(position: impl ToCell) -> Cell {
    position.to_cell()
}

/// Positions as cells, in their order.
pub fn cells<P: ToCell>(positions: &[P]) -> Vec<Cell> {
    positions.iter().map(ToCell::to_cell).collect()
}

/// The engine position of a cell.
pub fn pos((row, col): Cell) -> engine::Position {
    engine::Position::new(row, col)
}

/// The engine position of row-major index `i` of `g`.
pub fn pos_at(g: &Grid, i: usize) -> engine::Position {
    pos(g.cell(i))
}

/// A group of the engine or of the wire.
pub trait ToGroup {
    fn to_group(&self) -> (u32, Vec<Cell>);
}

impl ToGroup for engine::Group {
    fn to_group(&self) -> (u32, Vec<Cell>) {
        (u32::from(self.color), cells(&self.cells))
    }
}

impl ToGroup for proto::Group {
    fn to_group(&self) -> (u32, Vec<Cell>) {
        (self.color, cells(&self.cells))
    }
}

/// Groups as `(colour, cells)`, in their order.
pub fn groups_of<G: ToGroup>(groups: &[G]) -> Vec<(u32, Vec<Cell>)> {
    groups.iter().map(ToGroup::to_group).collect()
}

/// A fall of the engine or of the wire.
pub trait ToFall {
    fn to_fall(&self) -> (Cell, Cell);
}

impl ToFall for engine::Fall {
    fn to_fall(&self) -> (Cell, Cell) {
        (cell(self.from), cell(self.to))
    }
}

impl ToFall for proto::Fall {
    fn to_fall(&self) -> (Cell, Cell) {
        (self.from.to_cell(), self.to.to_cell())
    }
}

/// Falls as `(from, to)`, in their order.
pub fn falls_of<F: ToFall>(falls: &[F]) -> Vec<(Cell, Cell)> {
    falls.iter().map(ToFall::to_fall).collect()
}

/// A spawn of the engine or of the wire.
pub trait ToSpawn {
    fn to_spawn(&self) -> (Cell, u32);
}

impl ToSpawn for engine::Spawn {
    fn to_spawn(&self) -> (Cell, u32) {
        (cell(self.position), u32::from(self.color))
    }
}

impl ToSpawn for proto::Spawn {
    fn to_spawn(&self) -> (Cell, u32) {
        (self.position.to_cell(), self.color)
    }
}

/// Spawns as `(cell, colour)`, in their order.
pub fn spawns_of<S: ToSpawn>(spawns: &[S]) -> Vec<(Cell, u32)> {
    spawns.iter().map(ToSpawn::to_spawn).collect()
}

/// A swap of the engine or of the wire (both wire positions must be set).
pub trait ToSwap {
    fn to_swap(&self) -> (Cell, Cell);
}

impl ToSwap for engine::Swap {
    fn to_swap(&self) -> (Cell, Cell) {
        (cell(self.a), cell(self.b))
    }
}

impl ToSwap for proto::Swap {
    fn to_swap(&self) -> (Cell, Cell) {
        (self.a.to_cell(), self.b.to_cell())
    }
}

/// Swaps as `(a, b)`, in their order.
pub fn swaps_of<S: ToSwap>(swaps: &[S]) -> Vec<(Cell, Cell)> {
    swaps.iter().map(ToSwap::to_swap).collect()
}
