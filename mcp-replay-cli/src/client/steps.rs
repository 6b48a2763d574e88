//! What a call does, as the user wrote it: its steps ([`Step`]), the references between
//! them (`@K:.PATH`, [`Reference`]), and the answers a cautious client gives the server's
//! own requests ([`Answers`]).

use super::*;

/// One request the user asked for, with its arguments.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
    /// `--list-tools`
    ListTools,
    /// `--list-resources`
    ListResources,
    /// `--list-prompts`
    ListPrompts,
    /// `--list-resource-templates`
    ListResourceTemplates,
    /// `--log-level LEVEL`
    SetLevel(String),
    /// `--tool NAME`, its arguments, and its progress token (`--progress` after it)
    Tool(String, Map<String, Value>, Option<Value>),
    /// `--resource URI`
    Resource(String),
    /// `--prompt NAME` and its arguments
    Prompt(String, Map<String, Value>),
}

impl Step {
    /// The JSON-RPC method of the step.
    pub(crate) fn method(&self) -> &'static str {
        match self {
            Step::ListTools => "tools/list",
            Step::ListResources => "resources/list",
            Step::ListPrompts => "prompts/list",
            Step::ListResourceTemplates => "resources/templates/list",
            Step::SetLevel(_) => "logging/setLevel",
            Step::Tool(..) => "tools/call",
            Step::Resource(_) => "resources/read",
            Step::Prompt(..) => "prompts/get",
        }
    }

    /// The request's params (`None` for the lists, which take none).
    pub(crate) fn params(&self) -> Option<Value> {
        match self {
            Step::ListTools
            | Step::ListResources
            | Step::ListPrompts
            | Step::ListResourceTemplates => None,
            Step::SetLevel(level) => Some(json!({"level": level})),
            Step::Tool(name, arguments, None) => {
                Some(json!({"name": name, "arguments": arguments}))
            }
            Step::Tool(name, arguments, Some(token)) => Some(json!({
                "name": name,
                "arguments": arguments,
                "_meta": {"progressToken": token}
            })),
            Step::Resource(uri) => Some(json!({"uri": uri})),
            Step::Prompt(name, arguments) if arguments.is_empty() => Some(json!({"name": name})),
            Step::Prompt(name, arguments) => Some(json!({"name": name, "arguments": arguments})),
        }
    }

    /// A listing (`tools/list`, ...), which may come in pages.
    pub(crate) fn is_listing(&self) -> bool {
        matches!(
            self,
            Step::ListTools | Step::ListResources | Step::ListPrompts | Step::ListResourceTemplates
        )
    }

    /// `tools/call echo`, `resources/read file:///x`, `tools/list`.
    pub(crate) fn describe(&self) -> String {
        match self {
            Step::Tool(name, ..) | Step::Prompt(name, _) => format!("{} {name}", self.method()),
            Step::SetLevel(level) => format!("{} {level}", self.method()),
            Step::Resource(uri) => format!("{} {uri}", self.method()),
            _ => self.method().to_owned(),
        }
    }

    /// The arguments this step takes, if it takes any.
    /// The step's arguments, for a tool or a prompt.
    pub(crate) fn arguments(&self) -> Option<&Map<String, Value>> {
        match self {
            Step::Tool(_, arguments, _) | Step::Prompt(_, arguments) => Some(arguments),
            _ => None,
        }
    }

    pub(crate) fn arguments_mut(&mut self) -> Option<&mut Map<String, Value>> {
        match self {
            Step::Tool(_, arguments, _) | Step::Prompt(_, arguments) => Some(arguments),
            _ => None,
        }
    }
}

/// How the command answers the server's requests, and the capabilities it declares.
#[derive(Debug, Default)]
pub(crate) struct Answers {
    roots: Vec<String>,
    elicitation: Option<Value>,
    sampling: Option<String>,
    /// `--task`: each tool is called as a task, and the Tasks extension is declared.
    pub(crate) tasks: bool,
}

impl Answers {
    /// From the flags (`--root`, `--accept-elicitation`, `--sampling-reply`);
    /// `--accept-elicitation` must be a JSON object.
    pub(crate) fn new(
        roots: &[String],
        accept_elicitation: Option<&str>,
        sampling_reply: Option<&str>,
    ) -> Result<Answers, Error> {
        let elicitation = match accept_elicitation {
            None => None,
            Some(text) => match serde_json::from_str::<Value>(text) {
                Ok(v @ Value::Object(_)) => Some(v),
                _ => {
                    return Err(Error::usage(format!(
                    "--accept-elicitation {text}: give a JSON object, e.g. '{{\"name\": \"Ada\"}}'"
                )))
                }
            },
        };
        Ok(Answers {
            roots: roots.to_vec(),
            elicitation,
            sampling: sampling_reply.map(str::to_owned),
            tasks: false,
        })
    }

    /// Only what a flag asked for: a cautious client declares nothing.
    pub(super) fn capabilities(&self) -> Value {
        let mut capabilities = Map::new();
        if !self.roots.is_empty() {
            capabilities.insert("roots".into(), json!({}));
        }
        if self.elicitation.is_some() {
            capabilities.insert("elicitation".into(), json!({}));
        }
        if self.sampling.is_some() {
            capabilities.insert("sampling".into(), json!({}));
        }
        if self.tasks {
            // The Tasks extension (SEP-2663, 2026-07-28); a server of 2025-11-25 makes a
            // task of a call that carries `task`, whatever the client declares.
            capabilities.insert(
                "extensions".into(),
                json!({"io.modelcontextprotocol/tasks": {}}),
            );
        }
        Value::Object(capabilities)
    }

    /// The result for a server request, or the JSON-RPC error (code, message).
    pub(super) fn answer(&self, method: &str) -> Result<Value, (i64, String)> {
        match method {
            "ping" => Ok(json!({})),
            "roots/list" => Ok(json!({
                "roots": self.roots.iter().map(|uri| json!({"uri": uri})).collect::<Vec<_>>()
            })),
            "elicitation/create" => Ok(match &self.elicitation {
                Some(content) => json!({"action": "accept", "content": content}),
                None => json!({"action": "decline"}),
            }),
            "sampling/createMessage" => match &self.sampling {
                Some(text) => Ok(json!({
                    "role": "assistant",
                    "content": {"type": "text", "text": text},
                    "model": "mcp-replay",
                    "stopReason": "endTurn"
                })),
                None => Err((
                    -1,
                    "the user refused the sampling request (mcp-replay call --sampling-reply TEXT answers it)".into(),
                )),
            },
            _ => Err((-32601, format!("Method not found: {method}"))),
        }
    }
}

/// A step's argument that reads back an earlier step's answer: `@K:.PATH`, the value at
/// `PATH` of what step `K` answered, or `@K:.PATH~REGEX`, the first match of `REGEX` in the
/// string there (its first group, if it has one): `id=@1:.content[0].text~note-[0-9a-f]+`
/// reads the id out of `created note-3f9a...`. A path goes on into a string that holds
/// JSON (`@1:.content[0].text.id` for a text `{"id":"note-3f9a"}`).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Reference<'s> {
    /// The step it reads (1 is the first).
    pub(crate) step: usize,
    path: &'s str,
    pattern: Option<&'s str>,
}

impl<'s> Reference<'s> {
    /// The reference `value` is, if it is a string of that form.
    pub(crate) fn of(value: &'s Value) -> Option<Reference<'s>> {
        let (step, rest) = value.as_str()?.strip_prefix('@')?.split_once(':')?;
        let step = step.parse::<usize>().ok()?;
        let (path, pattern) = match rest.split_once('~') {
            Some((path, pattern)) => (path, Some(pattern)),
            None => (rest, None),
        };
        Some(Reference {
            step,
            path,
            pattern,
        })
    }

    /// What it reads in `answer`; `Err` says what is not there.
    fn read(&self, answer: &Value) -> Result<Value, String> {
        let found =
            path_in(answer, self.path).ok_or_else(|| format!("nothing at {}", self.path))?;
        let Some(pattern) = self.pattern else {
            return Ok(found);
        };
        let text = found
            .as_str()
            .ok_or_else(|| format!("{} is no string for ~{pattern}", self.path))?;
        let regex = regex::Regex::new(pattern).map_err(|e| format!("~{pattern}: {e}"))?;
        let captures = regex
            .captures(text)
            .ok_or_else(|| format!("no match of ~{pattern} in {text:?}"))?;
        let matched = captures
            .get(1)
            .or_else(|| captures.get(0))
            .expect("a match");
        Ok(Value::String(matched.as_str().to_owned()))
    }
}

/// Checks every reference of `steps` before anything runs: each names a step before its
/// own, whose answer there is (`None` when `--client-only` runs no step: `offline` says
/// why). A usage error names the step and the reference.
pub(crate) fn check_references(steps: &[Step], offline: Option<&str>) -> Result<(), String> {
    for (n, step) in steps.iter().enumerate().map(|(i, s)| (i + 1, s)) {
        let Some(arguments) = step.arguments() else {
            continue;
        };
        for (key, value) in arguments {
            let Some(reference) = Reference::of(value) else {
                continue;
            };
            let written = value.as_str().unwrap_or_default();
            if let Some(why) = offline {
                return Err(format!(
                    "step {n}: {key}={written} reads step {}'s answer, but {why}: give the \
                     value itself, or run the steps against the server (-- SERVER or --url)",
                    reference.step
                ));
            }
            if reference.step == 0 || reference.step >= n {
                return Err(format!(
                    "step {n}: {key}={written} names step {}, which does not run before it \
                     (steps are numbered from 1 in the order given)",
                    reference.step
                ));
            }
            if let Some(pattern) = reference.pattern {
                regex::Regex::new(pattern)
                    .map_err(|e| format!("step {n}: {key}={written}: ~{pattern}: {e}"))?;
            }
        }
    }
    Ok(())
}

/// Step `n`'s arguments with each reference ([`Reference`]) replaced by what it reads in
/// the answers so far (`answers[K - 1]`, as printed: the result, or `{"error": ...}`): a
/// path that is not there stops the session naming it.
pub(super) fn refer(
    n: usize,
    arguments: &mut Map<String, Value>,
    answers: &[Value],
) -> Result<(), Stop> {
    for (key, value) in arguments.iter_mut() {
        let Some(reference) = Reference::of(value) else {
            continue;
        };
        let written = value.as_str().unwrap_or_default().to_owned();
        let k = reference.step;
        let answer = answers.get(k.wrapping_sub(1)).ok_or_else(|| {
            Stop(format!(
                "step {n}: {key}={written} names step {k}, which has not run before it"
            ))
        })?;
        let found = reference.read(answer).map_err(|why| {
            Stop(format!(
                "step {n}: {key}={written}: step {k}'s answer has {why}"
            ))
        })?;
        *value = found;
    }
    Ok(())
}

/// The value at a path such as `.structuredContent.items[0].id` in `value`, going on into
/// a string that holds JSON where the path goes on.
pub(super) fn path_in(value: &Value, path: &str) -> Option<Value> {
    let mut at = value.clone();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, indexes) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if let Value::String(text) = &at {
            at = serde_json::from_str(text).ok()?;
        }
        if !key.is_empty() {
            at = at.get(key)?.clone();
        }
        for index in indexes.split('[').filter(|i| !i.is_empty()) {
            at = at
                .get(index.strip_suffix(']')?.parse::<usize>().ok()?)?
                .clone();
        }
    }
    Some(at)
}
