//! Token accounting: estimates for servers that send no `usage`, and the [`Ledger`] that sums
//! calls by phase and candidate.
//!
//! Reported usage is summed exactly (integers, no rounding). An estimate counts with the
//! `cl100k_base` tokenizer ([`crate::knowledge::tokens`]) plus OpenAI's documented chat
//! framing: 3 tokens per message and 3 priming the reply (the `num_tokens_from_messages`
//! recipe of the OpenAI cookbook, "How to count tokens with tiktoken"); tool specs count as
//! their JSON. Figures that include an estimate carry `estimated = true` all the way up.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::types::{AssistantMessage, ChatRequest, Message, Usage};
use crate::knowledge::tokens;

/// Framing tokens per message (`<|start|>role … <|end|>`), per the OpenAI cookbook.
pub const TOKENS_PER_MESSAGE: u64 = 3;
/// Tokens priming the assistant's reply, per the OpenAI cookbook.
pub const TOKENS_REPLY_PRIMING: u64 = 3;

/// The estimated usage of `req` answered by `answer` (marked `estimated`).
pub fn estimate_usage(req: &ChatRequest, answer: &AssistantMessage) -> Usage {
    let mut prompt = TOKENS_REPLY_PRIMING;
    for m in &req.messages {
        prompt += TOKENS_PER_MESSAGE + tokens::count(m.role()) as u64;
        prompt += match m {
            Message::Assistant(a) => assistant_tokens(a),
            other => tokens::count(other.text().unwrap_or("")) as u64,
        };
    }
    for t in &req.tools {
        prompt += tokens::count(&serde_json::to_string(t).unwrap_or_default()) as u64;
    }
    Usage {
        prompt,
        completion: assistant_tokens(answer),
        cached: 0,
        reasoning: answer
            .reasoning_content
            .as_deref()
            .map_or(0, |r| tokens::count(r) as u64),
        estimated: true,
    }
}

fn assistant_tokens(a: &AssistantMessage) -> u64 {
    let mut n = tokens::count(a.content.as_deref().unwrap_or("")) as u64;
    n += a
        .reasoning_content
        .as_deref()
        .map_or(0, |r| tokens::count(r) as u64);
    for c in &a.tool_calls {
        n += tokens::count(&c.name) as u64 + tokens::count(&c.arguments) as u64;
    }
    n
}

/// One ledger line: the usage and number of calls under a (phase, candidate) label.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerEntry {
    /// The phase (`init`, `repair`, …).
    pub phase: String,
    /// The candidate's id (empty when the call served no one candidate).
    pub candidate: String,
    /// Calls counted.
    pub calls: u64,
    /// Their summed usage.
    pub usage: Usage,
}

/// Sums of usage by (phase, candidate); thread-safe.
#[derive(Debug, Default)]
pub struct Ledger {
    entries: Mutex<BTreeMap<(String, String), (u64, Usage)>>,
}

impl Ledger {
    /// An empty ledger.
    pub fn new() -> Ledger {
        Ledger::default()
    }

    /// Counts one call that cost `usage` under `phase` and `candidate`.
    pub fn add(&self, phase: &str, candidate: &str, usage: Usage) {
        let mut m = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let e = m
            .entry((phase.to_string(), candidate.to_string()))
            .or_default();
        e.0 += 1;
        e.1 += usage;
    }

    /// Every (phase, candidate) line, sorted by phase then candidate.
    pub fn entries(&self) -> Vec<LedgerEntry> {
        let m = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        m.iter()
            .map(|((phase, candidate), (calls, usage))| LedgerEntry {
                phase: phase.clone(),
                candidate: candidate.clone(),
                calls: *calls,
                usage: *usage,
            })
            .collect()
    }

    /// The sum over everything.
    pub fn total(&self) -> Usage {
        self.entries().into_iter().map(|e| e.usage).sum()
    }

    /// Calls counted in all.
    pub fn calls(&self) -> u64 {
        self.entries().iter().map(|e| e.calls).sum()
    }

    /// Sums per phase.
    pub fn by_phase(&self) -> BTreeMap<String, Usage> {
        let mut out: BTreeMap<String, Usage> = BTreeMap::new();
        for e in self.entries() {
            *out.entry(e.phase).or_default() += e.usage;
        }
        out
    }

    /// Sums per candidate.
    pub fn by_candidate(&self) -> BTreeMap<String, Usage> {
        let mut out: BTreeMap<String, Usage> = BTreeMap::new();
        for e in self.entries() {
            *out.entry(e.candidate).or_default() += e.usage;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimate_counts_framing_and_text() {
        let req = ChatRequest::new("m", vec![Message::user("hello world")]);
        let ans = AssistantMessage {
            content: Some("tiktoken is great!".into()),
            ..AssistantMessage::default()
        };
        let u = estimate_usage(&req, &ans);
        // 3 priming + 3 framing + "user" (1) + "hello world" (2).
        assert_eq!(u.prompt, 9);
        assert_eq!(u.completion, 6);
        assert!(u.estimated);
    }

    #[test]
    fn ledger_sums_exactly() {
        let l = Ledger::new();
        let u = |p, c| Usage {
            prompt: p,
            completion: c,
            ..Usage::default()
        };
        l.add("init", "c1", u(100, 7));
        l.add("init", "c1", u(1, 1));
        l.add("repair", "c2", u(5, 5));
        assert_eq!(l.total(), u(106, 13));
        assert_eq!(l.calls(), 3);
        assert_eq!(l.by_phase()["init"], u(101, 8));
        assert_eq!(l.by_candidate()["c2"], u(5, 5));
        assert_eq!(l.entries()[0].calls, 2);
    }
}
