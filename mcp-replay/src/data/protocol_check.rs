//! How strictly a replay takes the server's protocol violations ([`ProtocolCheck`]): a
//! setting that the fixture header, the options and the checker share. A leaf, so that the
//! fixture's header can hold it without importing the validator. Public at
//! `mcp_replay::ProtocolCheck` and `mcp_replay::_support::validate::ProtocolCheck`.

/// What a protocol violation of the server is in a replay: a finding (the default), a
/// warning written under the report, or nothing. The header's `"protocol_check"`,
/// [`Options::protocol_check`](crate::Options::protocol_check), the attribute's
/// `protocol_check = "warn"` and the command's `--protocol-warnings` set it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProtocolCheck {
    /// A violation is a [`Protocol`](crate::MismatchKind::Protocol) finding.
    #[default]
    Deny,
    /// A violation is a warning ([`Report::warnings`](crate::Report::warnings)); the replay
    /// passes if nothing else differs. For a server one cannot fix.
    Warn,
    /// Nothing is checked.
    Off,
}

impl ProtocolCheck {
    /// Reads `deny`, `warn` or `off`.
    pub fn parse(text: &str) -> Option<ProtocolCheck> {
        match text {
            "deny" => Some(ProtocolCheck::Deny),
            "warn" => Some(ProtocolCheck::Warn),
            "off" => Some(ProtocolCheck::Off),
            _ => None,
        }
    }

    /// Its name: `deny`, `warn` or `off`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolCheck::Deny => "deny",
            ProtocolCheck::Warn => "warn",
            ProtocolCheck::Off => "off",
        }
    }
}
