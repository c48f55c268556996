//! Where a rule is working: the field path shown to users and the schema path used to look
//! up list keys.

/// `spec.template.spec.containers[name=web].image`, and its schema form
/// `spec.template.spec.containers[].image`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Path {
    pub shown: String,
    pub schema: String,
}

impl Path {
    /// The path of a map field.
    pub fn key(&self, name: &str) -> Path {
        let join = |p: &str| {
            if p.is_empty() {
                name.to_string()
            } else {
                format!("{p}.{name}")
            }
        };
        Path {
            shown: join(&self.shown),
            schema: join(&self.schema),
        }
    }

    /// The path of a list element, described by its key (`name=web`) or position.
    pub fn element(&self, what: &str) -> Path {
        Path {
            shown: format!("{}[{what}]", self.shown),
            schema: format!("{}[]", self.schema),
        }
    }
}
