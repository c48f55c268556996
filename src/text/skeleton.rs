//! The alphabet of a Helm/Go template's YAML skeleton: the private-use characters its tokens
//! are written with (U+E000 to U+E0FF, which no manifest holds), and the recognisers of its
//! control lines. The masking (`template`) writes them; the comment pass (`render`) keeps a
//! closing control line with the field it closes. One alphabet, below both.

/// Opens an inline action's token.
pub(crate) const INLINE: char = '\u{E000}';
/// Closes every token.
pub(crate) const CLOSE: char = '\u{E001}';
/// Opens a control line's token (after `#`).
pub(crate) const CONTROL: char = '\u{E002}';
/// Opens the token of an action that is a value with a block below (after `#`).
pub(crate) const VALUE: char = '\u{E003}';
/// Opens the token that marks a key as one of an `else` branch: it stands for no text.
pub(crate) const BRANCH: char = '\u{E004}';
/// Opens a closing control line's token (after `#`): a line of nothing but `end` actions,
/// which the comment pass keeps below the field it closes ([`is_closing_line`]).
pub(crate) const CLOSING: char = '\u{E005}';
/// The sixteen digits of a token's number.
pub(crate) const DIGIT: u32 = 0xE010;

/// Whether a text may hold closing control lines: a skeleton's, with such a token.
pub(crate) fn may_hold_closing_lines(text: &str) -> bool {
    text.contains(CLOSING)
}

/// Whether a line of a skeleton (without its indentation) is a closing control line: only
/// `{{- end }}` actions. It closes the block of the field above it, so it is that field's,
/// not the head of the field below.
pub(crate) fn is_closing_line(body: &str) -> bool {
    body.starts_with(&format!("#{CLOSING}"))
}
