//! Request parameters parsed once into typed values: a value of these types is in range by
//! construction, so the rules never re-check or re-clamp it.

use std::fmt;
use std::ops::RangeInclusive;

use super::board::{MAX_COLOR, MAX_SIDE};
use super::error::EngineError;

/// A request's value of `field` where 0 asks for a default: `default` for 0, else `value` when
/// it lies in `range`.
///
/// # Errors
/// [`EngineError::InvalidParameter`] naming `field`: "must be A..=B (0 means D), got V".
pub(crate) fn zero_means_default<T>(
    field: &'static str,
    value: T,
    default: T,
    range: RangeInclusive<T>,
) -> Result<T, EngineError>
where
    T: Copy + Default + PartialOrd + fmt::Display,
{
    if value == T::default() {
        Ok(default)
    } else if range.contains(&value) {
        Ok(value)
    } else {
        Err(EngineError::InvalidParameter {
            field,
            reason: format!(
                "must be {}..={} (0 means {default}), got {value}",
                range.start(),
                range.end()
            ),
        })
    }
}

fn check_side(field: &'static str, value: u32) -> Result<u8, EngineError> {
    if (1..=MAX_SIDE).contains(&value) {
        Ok(value as u8)
    } else {
        Err(EngineError::InvalidParameter {
            field,
            reason: format!("must be 1..=64, got {value}"),
        })
    }
}

/// The size and palette of a board to generate: sides `1..=64`, colours `min..=16` (2 for the
/// swap family, which needs two colours for a stable board; 1 for the collapse family).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GenerationSize {
    width: u8,
    height: u8,
    colors: u8,
}

impl GenerationSize {
    /// Parses a swap-family generation request's sizes: sides `1..=64`, colours `2..=16`.
    ///
    /// # Errors
    /// [`EngineError::InvalidParameter`] naming `width`, `height` or `colors`, in that order.
    pub fn for_swap(width: u32, height: u32, colors: u32) -> Result<Self, EngineError> {
        Self::parse(width, height, colors, 2)
    }

    /// Parses a collapse-family generation request's sizes: sides `1..=64`, colours `1..=16`.
    ///
    /// # Errors
    /// [`EngineError::InvalidParameter`] naming `width`, `height` or `colors`, in that order.
    pub fn for_collapse(width: u32, height: u32, colors: u32) -> Result<Self, EngineError> {
        Self::parse(width, height, colors, 1)
    }

    fn parse(width: u32, height: u32, colors: u32, min_colors: u32) -> Result<Self, EngineError> {
        let width = check_side("width", width)?;
        let height = check_side("height", height)?;
        if !(min_colors..=u32::from(MAX_COLOR)).contains(&colors) {
            return Err(EngineError::InvalidParameter {
                field: "colors",
                reason: format!("must be {min_colors}..=16, got {colors}"),
            });
        }
        Ok(Self {
            width,
            height,
            colors: colors as u8,
        })
    }

    /// Columns, `1..=64`.
    #[inline]
    pub fn width(self) -> usize {
        usize::from(self.width)
    }

    /// Rows, `1..=64`.
    #[inline]
    pub fn height(self) -> usize {
        usize::from(self.height)
    }

    /// Number of colours, `1..=16` (`2..=16` for the swap family).
    #[inline]
    pub fn colors(self) -> u8 {
        self.colors
    }
}

/// The smallest group a collapse-family tap may clear: `2..=4096` cells (docs/rules.md
/// section 3). A request's `min_group` of 0 means the default, 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MinGroup(u16);

impl MinGroup {
    /// The smallest legal value and the default: 2 cells.
    pub const DEFAULT: Self = Self(MIN_GROUP_FLOOR as u16);

    /// Parses a request value: 0 means the default 2; otherwise `2..=4096`.
    ///
    /// # Errors
    /// [`EngineError::InvalidParameter`] naming `min_group`.
    pub fn parse(value: u32) -> Result<Self, EngineError> {
        let range = MIN_GROUP_FLOOR..=MIN_GROUP_CEILING;
        zero_means_default("min_group", value, MIN_GROUP_FLOOR, range).map(|v| Self(v as u16))
    }

    /// The minimum size, in cells, `2..=4096`.
    #[inline]
    pub fn get(self) -> usize {
        usize::from(self.0)
    }
}

impl Default for MinGroup {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Smallest legal `min_group`.
pub const MIN_GROUP_FLOOR: u32 = 2;
/// Largest accepted `min_group`: the cell count of the largest board.
pub const MIN_GROUP_CEILING: u32 = 64 * 64;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_asks_for_the_default_and_an_error_names_the_field_and_range() {
        assert_eq!(zero_means_default("f", 0u32, 7, 2..=9), Ok(7));
        assert_eq!(zero_means_default("f", 9u64, 7, 2..=9), Ok(9));
        assert_eq!(
            zero_means_default("min_group", 1u32, 2, 2..=4096),
            Err(EngineError::InvalidParameter {
                field: "min_group",
                reason: "must be 2..=4096 (0 means 2), got 1".to_owned(),
            })
        );
    }

    #[test]
    fn min_group_range() {
        assert_eq!(MinGroup::parse(0).map(MinGroup::get), Ok(2));
        assert_eq!(MinGroup::parse(4096).map(MinGroup::get), Ok(4096));
        assert!(MinGroup::parse(1).is_err());
        assert!(MinGroup::parse(4097).is_err());
    }
}
