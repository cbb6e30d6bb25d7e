//! Snapshots of the `--message-format json` messages (`src/messages.rs`): the structure of
//! each message, with the values that vary between runs, machines and knowledge-base edits
//! (times, paths, keys, prompt text, numbers) redacted to their JSON type.
//!
//! Refresh with `SNAPSHOTS=overwrite cargo test -p cargo-agenticcann`.

use serde_json::{Map, Value};

/// `v` with every value replaced by its type (`"<string>"`, `"<number>"`, `"<bool>"`),
/// except scalar fields named in `keep`, which stay as they are; an array keeps its first
/// element's structure (`[]` when empty). Objects keep every key, sorted. Pretty-printed.
pub fn structure(v: &Value, keep: &[&str]) -> String {
    let mut text = serde_json::to_string_pretty(&redact(v, keep, false)).unwrap();
    text.push('\n');
    text
}

fn redact(v: &Value, keep: &[&str], kept: bool) -> Value {
    match v {
        Value::Null => Value::Null,
        _ if kept && !v.is_object() && !v.is_array() => v.clone(),
        Value::Bool(_) => Value::String("<bool>".into()),
        Value::Number(_) => Value::String("<number>".into()),
        Value::String(_) => Value::String("<string>".into()),
        Value::Array(a) => Value::Array(
            a.first()
                .map(|x| redact(x, keep, false))
                .into_iter()
                .collect(),
        ),
        Value::Object(o) => {
            let mut out = Map::new();
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            for k in keys {
                out.insert(k.clone(), redact(&o[k], keep, keep.contains(&k.as_str())));
            }
            Value::Object(out)
        }
    }
}
