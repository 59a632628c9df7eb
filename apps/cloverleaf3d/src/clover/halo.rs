//! update_halo: reflective boundary conditions, field by field, to a depth of 1 or 2 layers.
//!
//! Each field reflects according to where its points sit along each axis: cell-centred data
//! mirror about the boundary face (layer 1 copies the first interior cell), node-centred data
//! about the boundary node (layer 1 copies the node one inside it), and the normal component
//! of a vector (velocity, or a flux through faces normal to that axis) changes sign. Face fluxes
//! follow the original's own rule across the faces they are not normal to: they reflect like
//! node data there (layer 1 copies the point two inside), and a few strips stop one point short
//! of the field's extent (`Field::short_strip`; later loops read the points they leave, so the
//! strips must be the original's point for point). The sides are done in the original's order
//! (y, then x, then z), every strip spanning the halos of the other axes, so corners and edges
//! come out as the original's. Each side is one runtime boundary fill over the original's strip
//! (`Ops::fill_halo_over`).

use super::*;

/// The fields of the original, by name, for halo updates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Field {
    Density0,
    Density1,
    Energy0,
    Energy1,
    Pressure,
    Viscosity,
    Soundspeed,
    XVel0,
    XVel1,
    YVel0,
    YVel1,
    ZVel0,
    ZVel1,
    VolFluxX,
    MassFluxX,
    VolFluxY,
    MassFluxY,
    VolFluxZ,
    MassFluxZ,
}

/// Where a field's points sit along one axis, which fixes its reflection rule there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Placing {
    /// Cell-centred: `n` points; layer `k` copies the point `2k - 1` inside.
    Cell,
    /// On nodes (or on faces normal to this axis): `n + 1` points; layer `k` copies the point
    /// `2k` inside.
    Node,
    /// A face flux across an axis it is not normal to: `n` points, but reflected like nodes
    /// (layer `k` copies the point `2k` inside), as the original does.
    FaceAcross,
}

impl Field {
    /// How the field sits along each axis, and the axis whose sides flip its sign.
    fn placing(self) -> ([Placing; 3], Option<usize>) {
        use Placing::*;
        match self {
            Field::Density0
            | Field::Density1
            | Field::Energy0
            | Field::Energy1
            | Field::Pressure
            | Field::Viscosity
            | Field::Soundspeed => ([Cell; 3], None),
            Field::XVel0 | Field::XVel1 => ([Node; 3], Some(0)),
            Field::YVel0 | Field::YVel1 => ([Node; 3], Some(1)),
            Field::ZVel0 | Field::ZVel1 => ([Node; 3], Some(2)),
            Field::VolFluxX | Field::MassFluxX => ([Node, FaceAcross, FaceAcross], Some(0)),
            Field::VolFluxY | Field::MassFluxY => ([FaceAcross, Node, FaceAcross], Some(1)),
            Field::VolFluxZ | Field::MassFluxZ => ([FaceAcross, FaceAcross, Node], Some(2)),
        }
    }

    /// The original's strips that stop one point short of the field along another axis:
    /// `Some(other)` when the strip on `side` (0 low, 1 high) of `axis` spans only `n` points
    /// along `other`, where the field has `n + 1` there.
    fn short_strip(self, axis: usize, side: usize) -> Option<usize> {
        match (self, axis, side) {
            (Field::VolFluxX | Field::MassFluxX, 2, _) => Some(0),
            (Field::VolFluxY | Field::MassFluxY, 2, _) => Some(1),
            (Field::VolFluxZ, 1, 0) => Some(2),
            _ => None,
        }
    }
}

impl Clover {
    /// Reflective boundary conditions for `fields` to `depth` layers (1 or 2).
    pub fn update_halo(&mut self, fields: &[Field], depth: i32) -> Result<()> {
        for &field in fields {
            self.reflect(field, depth, [true; 3])?;
        }
        Ok(())
    }

    /// [`Clover::update_halo`] on the two sides of one axis only (the strips of the other axes
    /// are left as they are).
    pub fn update_halo_along(&mut self, fields: &[Field], axis: usize, depth: i32) -> Result<()> {
        let mut sides = [false; 3];
        sides[axis] = true;
        for &field in fields {
            self.reflect(field, depth, sides)?;
        }
        Ok(())
    }

    fn dat(&self, field: Field) -> Dat<f64> {
        let f = &self.f;
        match field {
            Field::Density0 => f.density0,
            Field::Density1 => f.density1,
            Field::Energy0 => f.energy0,
            Field::Energy1 => f.energy1,
            Field::Pressure => f.pressure,
            Field::Viscosity => f.viscosity,
            Field::Soundspeed => f.soundspeed,
            Field::XVel0 => f.xvel0,
            Field::XVel1 => f.xvel1,
            Field::YVel0 => f.yvel0,
            Field::YVel1 => f.yvel1,
            Field::ZVel0 => f.zvel0,
            Field::ZVel1 => f.zvel1,
            Field::VolFluxX => f.vol_flux_x,
            Field::MassFluxX => f.mass_flux_x,
            Field::VolFluxY => f.vol_flux_y,
            Field::MassFluxY => f.mass_flux_y,
            Field::VolFluxZ => f.vol_flux_z,
            Field::MassFluxZ => f.mass_flux_z,
        }
    }

    /// One field's reflection: for each side (y, x, z; low then high) of the axes `sides`
    /// selects and each layer, the halo strip copies, with the field's sign, the point the
    /// original mirrors it from.
    fn reflect(&mut self, field: Field, depth: i32, sides: [bool; 3]) -> Result<()> {
        let dat = self.dat(field);
        let (placing, sign_axis) = field.placing();
        let points = |a: usize| match placing[a] {
            Placing::Node => self.n[a] + 1,
            Placing::Cell | Placing::FaceAcross => self.n[a],
        };
        let size = [points(0), points(1), points(2)];
        for axis in [1, 0, 2].into_iter().filter(|&a| sides[a]) {
            let bc = Boundary::Reflect {
                centring: match placing[axis] {
                    Placing::Cell => Centring::Cell,
                    Placing::Node | Placing::FaceAcross => Centring::Node,
                },
                negate: sign_axis == Some(axis),
            };
            for (side, face) in [(0, Face::lower(axis)), (1, Face::upper(axis))] {
                let mut extent = size.map(|s| (-depth, s + depth));
                if let Some(other) = field.short_strip(axis, side) {
                    extent[other].1 -= 1;
                }
                let span = rg(extent[0], extent[1], extent[2]);
                self.ops.fill_halo_over(&dat, face, depth, bc, span)?;
            }
        }
        Ok(())
    }
}
