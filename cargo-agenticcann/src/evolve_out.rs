//! What `evolve` makes of a finished search: the table per op, the best kernel as a store
//! entry (in the run folder and, pending review, in the user cache), and `--accept`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use agenticcann_build::spec::OpSpec;
use agenticcann_build::store::{self, Draft, PhaseTokens, Proposer, Provenance};
use agenticcann_build::synth::EagerTime;
use agenticcann_evolve::pending::{self, PendingMeta};
use agenticcann_evolve::search::population::{geomean, Individual, Tokens};
use agenticcann_evolve::search::SearchRun;
use anyhow::Result;
use serde::Serialize;

/// One declared shape's row.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// `n=4096`.
    pub dims: String,
    /// The best kernel's time, µs.
    pub best_us: Option<f64>,
    /// The model's first feasible kernel's time, µs.
    pub first_feasible_us: Option<f64>,
    /// The offline proposer's seed's time, µs.
    pub offline_us: Option<f64>,
    /// The eager baseline's time (one kernel per reference operation), µs.
    pub eager_us: Option<f64>,
}

/// The best kernel.
#[derive(Clone, Debug, Serialize)]
pub struct Best {
    /// Its id in the op's population.
    pub id: usize,
    /// The phase that made it.
    pub phase: String,
    /// What made it.
    pub label: String,
    /// Its generation.
    pub generation: u32,
}

/// The end-of-run table of one op.
#[derive(Clone, Debug, Serialize)]
pub struct Table {
    /// The op.
    pub op: String,
    /// Whether any kernel is accepted.
    pub feasible: bool,
    /// The best kernel.
    pub best: Option<Best>,
    /// Generations run.
    pub generations: usize,
    /// Why the search ended.
    pub stop: String,
    /// Per declared shape.
    pub shapes: Vec<Row>,
    /// Speedups of the best kernel (geometric mean over the declared shapes): vs the model's
    /// first feasible kernel, the offline seed and the eager baseline.
    pub speedup_vs_first: Option<f64>,
    /// See [`Table::speedup_vs_first`].
    pub speedup_vs_offline: Option<f64>,
    /// See [`Table::speedup_vs_first`].
    pub speedup_vs_eager: Option<f64>,
    /// Tokens by phase.
    pub tokens_by_phase: BTreeMap<String, Tokens>,
    /// Tokens in all.
    pub total_tokens: u64,
    /// Some tokens were counted by us, not reported by the server.
    pub tokens_estimated: bool,
    /// Candidates recorded.
    pub candidates: usize,
    /// Candidates by verdict (`accepted`, `compile_error`, `drift_rejected`, `duplicate`, …).
    pub verdicts: BTreeMap<String, usize>,
    /// Wall time of the op, seconds: the search (`SearchRun::seconds`) plus writing its
    /// results and timing the eager baseline (`cargo agenticcann evolve` sets it after both).
    pub seconds: f64,
    /// Judge time summed over candidates, seconds.
    pub judge_seconds: f64,
    /// Time waiting for the model, seconds.
    pub model_seconds: f64,
    /// Time spent judging the eager baseline's kernels for the `eager` column, seconds.
    pub baseline_seconds: f64,
}

fn time_at(i: Option<&Individual>, dims: &BTreeMap<String, u64>) -> Option<f64> {
    i?.line
        .time_us
        .iter()
        .find(|t| &t.dims == dims)
        .map(|t| t.us)
}

fn ratio(a: &[Option<f64>], b: &[Option<f64>]) -> Option<f64> {
    if a.is_empty() || a.len() != b.len() || a.iter().chain(b).any(Option::is_none) {
        return None;
    }
    let r: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(x, y)| x.unwrap_or(1.0) / y.unwrap_or(1.0))
        .collect();
    geomean(r.into_iter())
}

impl Table {
    /// The table of `run`.
    pub fn of(op: &OpSpec, run: &SearchRun, eager: Option<&EagerTime>) -> Table {
        let best = run.best();
        let first = run.first_feasible.and_then(|id| run.population.get(id));
        let offline = run.offline_seed.and_then(|id| run.population.get(id));
        let declared: Vec<BTreeMap<String, u64>> = op
            .shapes
            .iter()
            .map(|b| b.iter().map(|(k, v)| (k.clone(), *v as u64)).collect())
            .collect();
        let shapes: Vec<Row> = declared
            .iter()
            .map(|d| Row {
                dims: pending::dims_text(d),
                best_us: time_at(best, d),
                first_feasible_us: time_at(first, d),
                offline_us: time_at(offline, d),
                eager_us: eager
                    .and_then(|e| e.shapes.iter().find(|(k, _)| k == d).map(|(_, t)| *t)),
            })
            .collect();
        let col = |f: fn(&Row) -> Option<f64>| shapes.iter().map(f).collect::<Vec<_>>();
        let b = col(|r| r.best_us);
        Table {
            op: op.name.clone(),
            feasible: best.is_some(),
            best: best.map(|i| Best {
                id: i.line.id,
                phase: i.line.phase.clone(),
                label: i.line.label.clone(),
                generation: i.line.generation,
            }),
            generations: run.generations.len(),
            stop: run.stop.to_string(),
            speedup_vs_first: ratio(&col(|r| r.first_feasible_us), &b),
            speedup_vs_offline: ratio(&col(|r| r.offline_us), &b),
            speedup_vs_eager: ratio(&col(|r| r.eager_us), &b),
            shapes,
            tokens_by_phase: run.tokens_by_phase.clone(),
            total_tokens: run.usage.total(),
            tokens_estimated: run.usage.estimated,
            candidates: run.population.all.len(),
            verdicts: run.verdicts(),
            seconds: run.seconds,
            judge_seconds: run.judge_seconds,
            model_seconds: run.model_seconds,
            baseline_seconds: 0.0,
        }
    }

    /// The table as text.
    pub fn write(&self, out: &mut impl Write) -> std::io::Result<()> {
        let verdicts: Vec<String> = self
            .verdicts
            .iter()
            .map(|(k, v)| format!("{v} {k}"))
            .collect();
        writeln!(
            out,
            "{}: {}, {} generation(s), {} candidate(s) ({}), {} tokens{}, {:.1} s (judge {:.1} s, model {:.1} s, eager baseline {:.1} s); stop: {}",
            self.op,
            if self.feasible { "FEASIBLE" } else { "NOT feasible" },
            self.generations,
            self.candidates,
            verdicts.join(", "),
            self.total_tokens,
            if self.tokens_estimated { " (estimated)" } else { "" },
            self.seconds,
            self.judge_seconds,
            self.model_seconds,
            self.baseline_seconds,
            self.stop
        )?;
        if let Some(b) = &self.best {
            writeln!(
                out,
                "  best: #{} (generation {}, {}: {})",
                b.id, b.generation, b.phase, b.label
            )?;
        }
        let us = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2} us"));
        writeln!(
            out,
            "  {:<28} {:>12} {:>15} {:>13} {:>13}",
            "shape", "best", "first feasible", "offline seed", "eager"
        )?;
        for r in &self.shapes {
            writeln!(
                out,
                "  {:<28} {:>12} {:>15} {:>13} {:>13}",
                r.dims,
                us(r.best_us),
                us(r.first_feasible_us),
                us(r.offline_us),
                us(r.eager_us)
            )?;
        }
        let x = |v: Option<f64>| v.map_or("-".to_string(), speedup_text);
        writeln!(
            out,
            "  speedup of the best: {} vs the first feasible kernel, {} vs the offline seed, {} vs eager",
            x(self.speedup_vs_first),
            x(self.speedup_vs_offline),
            x(self.speedup_vs_eager)
        )?;
        if let (Some(s), Some(b)) = (self.speedup_vs_offline, &self.best) {
            if s > 1.0 && b.phase == "tiling" && self.total_tokens == 0 {
                let shapes: Vec<String> = self
                    .shapes
                    .iter()
                    .filter_map(|r| match (r.best_us, r.offline_us) {
                        (Some(b), Some(o)) if b < o => {
                            Some(format!("{} {o:.2} -> {b:.2} us", r.dims))
                        }
                        _ => None,
                    })
                    .collect();
                writeln!(
                    out,
                    "  the offline tiling search alone improved the offline seed {} ({})",
                    speedup_text(s),
                    shapes.join(", ")
                )?;
            }
        }
        if !self.tokens_by_phase.is_empty() {
            let t: Vec<String> = self
                .tokens_by_phase
                .iter()
                .map(|(k, v)| format!("{k} {} ({} + {})", v.total(), v.prompt, v.completion))
                .collect();
            writeln!(out, "  tokens by phase: {}", t.join(", "))?;
        }
        Ok(())
    }
}

/// The provenance of the best kernel of `run`.
pub fn provenance(run: &SearchRun, best: &Individual) -> Provenance {
    let model_made =
        matches!(
            best.line.phase.as_str(),
            "init" | "single" | "mutation" | "repair" | "tuning"
        ) || (best.line.phase == "tiling" && run.model != "none" && best.line.parent.is_some());
    let mut p = Provenance::new(if model_made {
        Proposer::Llm
    } else {
        Proposer::Offline
    });
    if run.model != "none" {
        p.model = Some(run.model.clone());
    }
    p.generation = Some(u64::from(best.line.generation));
    p.parent = best.line.parent.map(|id| format!("candidate {id}"));
    let t = |k: &str| run.tokens_by_phase.get(k).map_or(0, Tokens::total);
    if run.usage.total() > 0 {
        p.tokens = Some(PhaseTokens {
            init: t("init"),
            mutation: t("mutation"),
            repair: t("repair"),
            tuning: t("tuning"),
        });
    }
    p.knowledge = run.knowledge.clone();
    p
}

/// Writes the best kernel of `run` as a store entry in `<run>/<op>/best/` and, pending
/// review, in the user cache (`<cache>/pending/<key>/`, replacing an older pending result
/// of the key; `cargo agenticcann review` shows it, `accept` writes it into the crate).
/// Returns the two folders (none when nothing is accepted; no cache folder when there is no
/// user cache).
///
/// # Errors
/// An entry cannot be written.
pub fn write_best(run_dir: &Path, op: &OpSpec, run: &SearchRun) -> Result<Vec<PathBuf>> {
    let Some(best) = run.best() else {
        return Ok(Vec::new());
    };
    let root = run_dir.join(&op.name).join("best");
    std::fs::create_dir_all(&root)?;
    let draft = Draft {
        op,
        candidate: &best.candidate,
        provenance: provenance(run, best),
        evaluation: best.evaluation.as_ref(),
    };
    let entry = store::replace_entry(&root, &draft)?;
    let mut out = vec![entry.dir];
    if let Some(cache) = pending::pending_root(&|k| agenticcann_build::env::var(k)) {
        let created = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
        let mut meta = PendingMeta::of_draft(&draft, run_dir, created);
        meta.parent = best.line.parent.map(|id| format!("candidate {id}"));
        meta.baseline_us = run
            .offline_seed
            .and_then(|id| run.population.get(id))
            .map(|seed| {
                seed.line
                    .time_us
                    .iter()
                    .map(|t| (pending::dims_text(&t.dims), t.us))
                    .collect()
            });
        out.push(pending::write(&cache, &draft, &meta)?);
    }
    Ok(out)
}

/// The pending result of an external agent's run (`--agent-command`, generation 1 alone):
/// its first accepted kernel, the one the report times, in the user cache as
/// [`write_best`] does for a search, so `review` and `accept` (and `--accept`) see it.
/// `offline` is the offline proposer's times (the review's baseline). `None` when nothing
/// was accepted or there is no user cache.
///
/// # Errors
/// The entry cannot be written.
pub fn write_agent_best(
    run_dir: &Path,
    op: &OpSpec,
    run: &agenticcann_evolve::agent::AgentRun,
    offline: Option<&[crate::messages::ShapeTime]>,
) -> Result<Option<PathBuf>> {
    let Some(c) = run.first_accepted() else {
        return Ok(None);
    };
    let Some(cache) = pending::pending_root(&|k| agenticcann_build::env::var(k)) else {
        return Ok(None);
    };
    let draft = agenticcann_evolve::agent::record::pending_draft(op, run, c);
    let created = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let mut meta = PendingMeta::of_draft(&draft, run_dir, created);
    meta.baseline_us = offline.map(|o| {
        o.iter()
            .map(|t| (pending::dims_text(&t.dims), t.us))
            .collect()
    });
    Ok(Some(pending::write(&cache, &draft, &meta)?))
}

/// `evolve --accept`: accepts the pending result of `op` just written (as `cargo
/// agenticcann accept OP` does) and returns the crate's entry folder; `None` when the op has
/// no accepted kernel.
///
/// # Errors
/// No user cache, or the pending result cannot be accepted (its checks, the lock).
pub fn accept_best(
    manifest: &Path,
    spec: &agenticcann_build::spec::Spec,
    op: &OpSpec,
    run: &SearchRun,
    replace: pending::Replace,
) -> Result<Option<PathBuf>> {
    if run.best().is_none() {
        return Ok(None);
    }
    accept_pending(manifest, spec, op, replace).map(Some)
}

/// Accepts the pending result of `op` in the user cache into the crate (what `cargo
/// agenticcann accept OP` does) and returns the crate's entry folder: `--accept` after a
/// search or an external agent's generation 1.
///
/// # Errors
/// No user cache, no pending result for the op, or the pending result cannot be accepted
/// (its checks, the lock).
pub fn accept_pending(
    manifest: &Path,
    spec: &agenticcann_build::spec::Spec,
    op: &OpSpec,
    replace: pending::Replace,
) -> Result<PathBuf> {
    let Some(cache) = pending::pending_root(&|k| agenticcann_build::env::var(k)) else {
        anyhow::bail!("--accept: there is no user cache (set AGENTICCANN_CACHE_DIR)");
    };
    let Some(p) = pending::find(&cache, &op.key().to_hex())? else {
        anyhow::bail!(
            "--accept: no pending result for `{}` in {}",
            op.name,
            cache.display()
        );
    };
    Ok(pending::accept(&p, spec, manifest, replace)?)
}

/// A speedup for people: two decimals, or four when it is within 1% of 1 (so a small real
/// change does not print as `1.00x`).
fn speedup_text(v: f64) -> String {
    if (v - 1.0).abs() < 0.01 && v != 1.0 {
        format!("{v:.4}x")
    } else {
        format!("{v:.2}x")
    }
}
