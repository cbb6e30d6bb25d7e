//! Recording and replay of every exchange with a model (`--replay DIR`, DESIGN §8).
//!
//! A [`Recorder`] wraps any [`ChatModel`] and writes each call, answer or error, to its own
//! file in a folder (the run folder's `llm/`):
//!
//! ```text
//! DIR/exchanges/000001-<hash prefix>.json   {"seq", "hash", "request", "response" | "error"}
//! ```
//!
//! The key is the BLAKE3 hash (hex) of the request's canonical JSON
//! ([`ChatRequest::canonical_json`]: sorted keys, compact). Requests carry no credentials
//! (the key lives in the HTTP client), so neither the hash nor the files depend on or contain
//! one. Files are written to a temporary file in the same folder and renamed into place, so
//! a crash leaves no half-written exchange.
//!
//! A [`Replayer`] serves a recording with no network. Identical requests recorded several
//! times (a retried step, a model asked the same thing twice) replay in the order recorded;
//! a recorded error replays as the same error. A request not in the recording is
//! [`LlmError::NotRecorded`], naming its hash and a line diff against the most similar
//! recorded request (usually a prompt that changed).

use std::collections::{BTreeMap, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::types::{ChatRequest, ChatResponse};
use super::{ChatModel, LlmError};

/// The folder under the recording directory that holds the exchange files.
pub const EXCHANGES: &str = "exchanges";

/// The hash that keys `req` in a recording: BLAKE3 of its canonical JSON, 64 hex digits.
pub fn request_hash(req: &ChatRequest) -> String {
    blake3::hash(req.canonical_json().as_bytes())
        .to_hex()
        .to_string()
}

/// One recorded exchange, as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    /// Position in the recording, from 1, in the order calls completed.
    pub seq: u64,
    /// [`request_hash`] of `request`.
    pub hash: String,
    /// The request (its serde form).
    pub request: Value,
    /// The answer, when the call succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<ChatResponse>,
    /// The error, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<LlmError>,
}

impl Exchange {
    fn outcome(&self) -> Result<ChatResponse, LlmError> {
        match (&self.response, &self.error) {
            (Some(r), _) => Ok(r.clone()),
            (None, Some(e)) => Err(e.clone()),
            (None, None) => Err(LlmError::Recording {
                path: format!("exchange {}", self.seq),
                detail: "neither a response nor an error".into(),
            }),
        }
    }
}

/// Records every call of `inner` into a folder (see the module docs).
#[derive(Debug)]
pub struct Recorder<M> {
    inner: M,
    dir: PathBuf,
    seq: Mutex<u64>,
}

impl<M: ChatModel> Recorder<M> {
    /// Records into `dir` (created if missing). An existing recording there is continued:
    /// numbering goes on after its last exchange.
    pub fn new(inner: M, dir: impl Into<PathBuf>) -> Result<Recorder<M>, LlmError> {
        let dir = dir.into();
        let ex = dir.join(EXCHANGES);
        std::fs::create_dir_all(&ex).map_err(|e| io_err(&ex, e))?;
        let last = list(&ex)?.last().map_or(0, |(seq, _)| *seq);
        Ok(Recorder {
            inner,
            dir,
            seq: Mutex::new(last),
        })
    }

    /// The recording folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The wrapped model.
    pub fn inner(&self) -> &M {
        &self.inner
    }
}

impl<M: ChatModel> ChatModel for Recorder<M> {
    fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let result = self.inner.chat(req);
        let request = serde_json::to_value(req).map_err(|e| LlmError::Recording {
            path: self.dir.display().to_string(),
            detail: format!("request does not serialize: {e}"),
        })?;
        let hash = request_hash(req);
        // Hold the counter while writing, so file numbers follow completion order.
        let mut seq = self.seq.lock().unwrap_or_else(|p| p.into_inner());
        *seq += 1;
        let ex = Exchange {
            seq: *seq,
            hash: hash.clone(),
            request,
            response: result.as_ref().ok().cloned(),
            error: result.as_ref().err().cloned(),
        };
        let path = self
            .dir
            .join(EXCHANGES)
            .join(format!("{:06}-{}.json", ex.seq, &hash[..16]));
        let mut text = serde_json::to_string_pretty(&ex).map_err(|e| LlmError::Recording {
            path: path.display().to_string(),
            detail: format!("exchange does not serialize: {e}"),
        })?;
        text.push('\n');
        write_atomic(&path, text.as_bytes())?;
        drop(seq);
        result
    }

    fn describe(&self) -> String {
        format!(
            "{} [recorded to {}]",
            self.inner.describe(),
            self.dir.display()
        )
    }
}

/// Serves a recording (see the module docs).
#[derive(Debug)]
pub struct Replayer {
    dir: PathBuf,
    queues: Mutex<BTreeMap<String, VecDeque<Exchange>>>,
    /// Each distinct recorded request once (hash, request), in first-recorded order.
    distinct: Vec<(String, Value)>,
    counts: BTreeMap<String, usize>,
}

impl Replayer {
    /// Loads the recording in `dir`. Errors: no `exchanges/` folder, a file that does not
    /// parse, or one whose hash does not match its request (edited by hand).
    pub fn open(dir: impl Into<PathBuf>) -> Result<Replayer, LlmError> {
        let dir = dir.into();
        let ex_dir = dir.join(EXCHANGES);
        if !ex_dir.is_dir() {
            return Err(LlmError::Recording {
                path: ex_dir.display().to_string(),
                detail: "not a recording: no exchanges/ folder".into(),
            });
        }
        let mut queues: BTreeMap<String, VecDeque<Exchange>> = BTreeMap::new();
        let mut distinct = Vec::new();
        let mut counts = BTreeMap::new();
        for (_, path) in list(&ex_dir)? {
            let text = std::fs::read_to_string(&path).map_err(|e| io_err(&path, e))?;
            let ex: Exchange = serde_json::from_str(&text).map_err(|e| LlmError::Recording {
                path: path.display().to_string(),
                detail: format!("does not parse as a recorded exchange: {e}"),
            })?;
            let req: ChatRequest =
                serde_json::from_value(ex.request.clone()).map_err(|e| LlmError::Recording {
                    path: path.display().to_string(),
                    detail: format!("the request does not parse: {e}"),
                })?;
            let hash = request_hash(&req);
            if hash != ex.hash {
                return Err(LlmError::Recording {
                    path: path.display().to_string(),
                    detail: format!(
                        "recorded hash {} does not match the request's hash {hash} (edited?)",
                        ex.hash
                    ),
                });
            }
            let n = counts.entry(hash.clone()).or_insert(0);
            *n += 1;
            if *n == 1 {
                distinct.push((hash.clone(), ex.request.clone()));
            }
            queues.entry(hash).or_default().push_back(ex);
        }
        Ok(Replayer {
            dir,
            queues: Mutex::new(queues),
            distinct,
            counts,
        })
    }

    /// Exchanges not served yet.
    pub fn remaining(&self) -> usize {
        let q = self.queues.lock().unwrap_or_else(|p| p.into_inner());
        q.values().map(VecDeque::len).sum()
    }

    fn not_recorded(&self, hash: &str, req: &ChatRequest) -> LlmError {
        let dir = self.dir.display().to_string();
        if let Some(n) = self.counts.get(hash) {
            return LlmError::NotRecorded {
                hash: hash.to_string(),
                dir,
                closest: hash.to_string(),
                diff: format!(
                    "(the same request was recorded {n} time{}; this is call {})",
                    if *n == 1 { "" } else { "s" },
                    n + 1
                ),
            };
        }
        let new = diff_view(&serde_json::to_value(req).unwrap_or(Value::Null));
        let best = self
            .distinct
            .iter()
            .map(|(h, v)| {
                let old = diff_view(v);
                let ratio = similar::TextDiff::from_lines(&old, &new).ratio();
                (ratio, h, old)
            })
            .max_by(|a, b| a.0.total_cmp(&b.0));
        match best {
            None => LlmError::NotRecorded {
                hash: hash.to_string(),
                dir,
                closest: "none".into(),
                diff: "(the recording is empty)".into(),
            },
            Some((_, h, old)) => LlmError::NotRecorded {
                hash: hash.to_string(),
                dir,
                closest: h.clone(),
                diff: short_diff(&old, &new),
            },
        }
    }
}

impl ChatModel for Replayer {
    fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let hash = request_hash(req);
        let next = {
            let mut q = self.queues.lock().unwrap_or_else(|p| p.into_inner());
            q.get_mut(&hash).and_then(VecDeque::pop_front)
        };
        match next {
            Some(ex) => ex.outcome(),
            None => Err(self.not_recorded(&hash, req)),
        }
    }

    fn describe(&self) -> String {
        format!("replay of {}", self.dir.display())
    }
}

/// Resuming an interrupted run (`cargo agenticcann evolve` run again on its run folder): the
/// answers already recorded in the folder are served from it, in recorded order per request,
/// and only requests beyond them reach the live model, whose exchanges are recorded in the same
/// folder (numbering goes on). Recorded *errors* are not replayed (a refused connection is not
/// an answer): such a request goes to the live model again. The same prompts therefore get the
/// same answers and cost no second time, so a resumed run continues where the first stopped.
pub struct Resume<M> {
    recorded: Option<Replayer>,
    live: Recorder<M>,
}

impl<M: ChatModel> Resume<M> {
    /// Serves what `dir` holds (if anything), then `live`, recording into `dir`.
    ///
    /// # Errors
    /// The folder cannot be created, or a recorded exchange does not parse or does not match
    /// its hash ([`Replayer::open`]).
    pub fn new(live: M, dir: impl Into<PathBuf>) -> Result<Resume<M>, LlmError> {
        let dir = dir.into();
        let recorded = if dir.join(EXCHANGES).is_dir() {
            let mut r = Replayer::open(&dir)?;
            // Only answers resume; errors are asked again.
            let q = r.queues.get_mut().unwrap_or_else(|p| p.into_inner());
            for v in q.values_mut() {
                v.retain(|ex| ex.response.is_some());
            }
            Some(r)
        } else {
            None
        };
        Ok(Resume {
            recorded,
            live: Recorder::new(live, dir)?,
        })
    }

    /// Recorded answers not served yet.
    pub fn remaining(&self) -> usize {
        self.recorded.as_ref().map_or(0, Replayer::remaining)
    }
}

impl<M: ChatModel> ChatModel for Resume<M> {
    fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        if let Some(r) = &self.recorded {
            let hash = request_hash(req);
            let next = {
                let mut q = r.queues.lock().unwrap_or_else(|p| p.into_inner());
                q.get_mut(&hash).and_then(VecDeque::pop_front)
            };
            if let Some(ex) = next {
                return ex.outcome();
            }
        }
        self.live.chat(req)
    }

    fn describe(&self) -> String {
        self.live.describe()
    }
}

/// A request as lines for diffing: one line per scalar field, and each message as a header
/// line plus its text's lines (so a changed prompt shows as the lines that changed).
fn diff_view(req: &Value) -> String {
    let mut out = String::new();
    let Some(obj) = req.as_object() else {
        return format!("{req}\n");
    };
    let mut keys: Vec<&String> = obj.keys().collect();
    keys.sort();
    for k in keys {
        if k == "messages" {
            continue;
        }
        out.push_str(&format!("{k}: {}\n", super::types::canonical(&obj[k])));
    }
    for (i, m) in obj
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("?");
        out.push_str(&format!("messages[{i}] ({role}):\n"));
        if let Some(Value::String(c)) = m.get("content") {
            for l in c.lines() {
                out.push_str("    ");
                out.push_str(l);
                out.push('\n');
            }
        }
        if let Some(m) = m.as_object() {
            for (k, v) in m {
                if k != "role" && k != "content" {
                    out.push_str(&format!("    {k}: {}\n", super::types::canonical(v)));
                }
            }
        }
    }
    out
}

/// A unified diff of `old` (recorded) and `new` (this request): 2 lines of context, at most
/// 40 lines of 160 characters.
fn short_diff(old: &str, new: &str) -> String {
    let diff = similar::TextDiff::from_lines(old, new);
    let text = diff
        .unified_diff()
        .context_radius(2)
        .header("recorded", "this request")
        .to_string();
    let mut out = String::new();
    let lines: Vec<&str> = text.lines().collect();
    for l in lines.iter().take(40) {
        match l.char_indices().nth(160) {
            Some((i, _)) => {
                out.push_str(&l[..i]);
                out.push('…');
            }
            None => out.push_str(l),
        }
        out.push('\n');
    }
    if lines.len() > 40 {
        out.push_str(&format!("… ({} more diff lines)\n", lines.len() - 40));
    }
    out
}

/// The exchange files of `dir`, sorted by their sequence number.
fn list(dir: &Path) -> Result<Vec<(u64, PathBuf)>, LlmError> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| io_err(dir, e))? {
        let entry = entry.map_err(|e| io_err(dir, e))?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().to_string();
        if !name.ends_with(".json") {
            continue;
        }
        let seq = name
            .split('-')
            .next()
            .and_then(|s| s.parse::<u64>().ok())
            .ok_or_else(|| LlmError::Recording {
                path: path.display().to_string(),
                detail: "not an exchange file name (NNNNNN-<hash>.json)".into(),
            })?;
        out.push((seq, path));
    }
    out.sort();
    Ok(out)
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), LlmError> {
    let parent = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(parent).map_err(|e| io_err(parent, e))?;
    tmp.write_all(bytes).map_err(|e| io_err(path, e))?;
    tmp.as_file().sync_all().map_err(|e| io_err(path, e))?;
    tmp.persist(path).map_err(|e| io_err(path, e.error))?;
    Ok(())
}

fn io_err(path: &Path, e: std::io::Error) -> LlmError {
    LlmError::Recording {
        path: path.display().to_string(),
        detail: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::types::Message;

    #[test]
    fn diff_shows_the_changed_prompt_line() {
        let a = ChatRequest::new("m", vec![Message::user("line one\nline two\nline three")]);
        let b = ChatRequest::new("m", vec![Message::user("line one\nline 2\nline three")]);
        let d = short_diff(
            &diff_view(&serde_json::to_value(&a).unwrap()),
            &diff_view(&serde_json::to_value(&b).unwrap()),
        );
        assert!(
            d.contains("-    line two") && d.contains("+    line 2"),
            "{d}"
        );
        assert!(!d.contains("-    line one"), "{d}");
        assert_ne!(request_hash(&a), request_hash(&b));
        assert_eq!(request_hash(&a).len(), 64);
    }
}
