//! The population of one op: every judged candidate, islands, elitism with diversity, and the
//! run folder's record of it (`<op>/candidates.jsonl`, `<op>/population/<id>/`).
//!
//! Fitness is the geometric mean of the cost model's time over the op's declared shapes, in
//! µs, for accepted kernels only (lower is better). Two islands evolve side by side; every
//! [`MIGRATION_EVERY`] generations each island's best joins the other. Selection keeps the
//! best kernel of an island, then prefers kernels whose layout differs ([`Niche`]: the bound
//! of the largest declared shape, the deepest queue, the blocks launched on it) before it
//! takes a second kernel of a layout already chosen, so the search does not collapse onto one
//! layout.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use agenticcann_build::judge::{Candidate, Evaluation, ShapeOrigin};
use agenticcann_build::spec::OpSpec;
use agenticcann_build::store::write_file_atomic;
use serde::{Deserialize, Serialize};

use crate::agent::tools::{fields_text, parse_fields};

/// Islands of a population.
pub const ISLANDS: usize = 2;

/// Generations between migrations (each island's best joins the other island).
pub const MIGRATION_EVERY: u32 = 2;

/// Tokens of the request(s) that produced a candidate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// Prompt tokens.
    pub prompt: u64,
    /// Completion tokens.
    pub completion: u64,
}

impl Tokens {
    /// Prompt + completion.
    pub fn total(&self) -> u64 {
        self.prompt + self.completion
    }
}

/// The cost model's time of one declared shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShapeTime {
    /// The named dimensions.
    pub dims: BTreeMap<String, u64>,
    /// Modelled time, µs.
    pub us: f64,
}

impl ShapeTime {
    /// The declared shapes of `ev` that have a profile, in plan order.
    pub fn declared(ev: &Evaluation) -> Vec<ShapeTime> {
        ev.shapes
            .iter()
            .filter(|s| s.origin == ShapeOrigin::Declared)
            .filter_map(|s| {
                s.profile.as_ref().map(|p| ShapeTime {
                    dims: s.dims.clone(),
                    us: p.time_us,
                })
            })
            .collect()
    }

    /// From (dims, microseconds) pairs.
    pub fn from_pairs(pairs: &[(BTreeMap<String, u64>, f64)]) -> Vec<ShapeTime> {
        pairs
            .iter()
            .map(|(dims, us)| ShapeTime {
                dims: dims.clone(),
                us: *us,
            })
            .collect()
    }

    /// `n=4096,c=8` ([`crate::pending::dims_text`]).
    pub fn dims_text(&self) -> String {
        crate::pending::dims_text(&self.dims)
    }
}

/// What the drift guard decided about a child.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriftDecision {
    /// True when the child was rejected unjudged.
    pub rejected: bool,
    /// How its skeleton differs from its parent's (empty: the same skeleton).
    pub reasons: Vec<String>,
}

/// One line of `<op>/candidates.jsonl`: one candidate, judged or rejected before judging.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CandidateLine {
    /// Number within the op, from 1.
    pub id: usize,
    /// sha256 of kernel, tiling and fields ([`crate::agent::candidate_digest`]).
    pub digest: String,
    /// The generation, from 1.
    pub generation: u32,
    /// `offline`, `init` (the generation-1 agent), `single`, `mutation`, `repair`,
    /// `tuning`, `tiling`.
    pub phase: String,
    /// The parent candidate's id.
    pub parent: Option<usize>,
    /// The agent mode of the run (`adaptive`, `tool`, `fixloop`, `single`, `none`).
    pub mode: String,
    /// The island it was born on.
    pub island: usize,
    /// What produced it, in words (a tiling variant's change, the agent's step).
    pub label: String,
    /// Tokens of the request(s) that produced it.
    pub tokens: Tokens,
    /// Knowledge chunk ids its prompt carried.
    pub knowledge: Vec<String>,
    /// Judge time: policy and compile, seconds.
    pub compile_s: f64,
    /// Judge time: runs, verification and profile, seconds.
    pub run_s: f64,
    /// The verdict (`verified`, `compile_failed`, …; `drift_rejected`, `not_applied`,
    /// `duplicate` when it was not judged).
    pub verdict: String,
    /// Accepted by the judge.
    pub accepted: bool,
    /// Error kinds of the earliest failing stage.
    pub kinds: Vec<String>,
    /// Time per declared shape (accepted or verified shapes only).
    pub time_us: Vec<ShapeTime>,
    /// Geometric mean of `time_us`, µs (accepted kernels only).
    pub fitness: Option<f64>,
    /// The drift guard's decision (children of a parent only).
    pub drift: Option<DriftDecision>,
    /// The earlier candidate with the same sources (judged once).
    pub duplicate_of: Option<usize>,
}

/// A layout niche: kernels in one niche count as the same layout for diversity.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Niche {
    /// The bounding pipe on the largest declared shape.
    pub bound: String,
    /// The deepest queue's buffer count (0 when unknown).
    pub buffers: u32,
    /// Blocks launched on the largest declared shape.
    pub blocks: u32,
}

/// A judged candidate in the population.
#[derive(Clone, Debug)]
pub struct Individual {
    /// Its record.
    pub line: CandidateLine,
    /// The sources.
    pub candidate: Candidate,
    /// The judge's evaluation (absent for candidates rejected before judging).
    pub evaluation: Option<Evaluation>,
}

impl Individual {
    /// The layout niche (see [`Niche`]).
    pub fn niche(&self) -> Niche {
        let largest = self.evaluation.as_ref().and_then(|ev| {
            ev.shapes
                .iter()
                .filter(|s| s.origin == ShapeOrigin::Declared)
                .filter_map(|s| s.profile.as_ref())
                .max_by_key(|p| p.min_bytes)
        });
        Niche {
            bound: largest.map(|p| p.bound.clone()).unwrap_or_default(),
            buffers: max_queue_depth(&self.candidate.kernel),
            blocks: largest.map_or(0, |p| p.block_dim),
        }
    }
}

/// The deepest `TQue`/`TQueBind` depth a kernel declares (literal or `constexpr` name), 0
/// when it cannot tell. Used for diversity only; the drift guard compares skeletons.
pub fn max_queue_depth(kernel: &str) -> u32 {
    crate::search::skeleton::extract(kernel)
        .ok()
        .map(|s| s.buffers.iter().filter_map(|b| b.depth).max().unwrap_or(0))
        .unwrap_or(0)
}

/// Time per declared shape and its geometric mean, for an accepted evaluation.
pub fn times_of(ev: &Evaluation) -> (Vec<ShapeTime>, Option<f64>) {
    let times = ShapeTime::declared(ev);
    let declared = ev
        .shapes
        .iter()
        .filter(|s| s.origin == ShapeOrigin::Declared)
        .count();
    let fitness = (ev.accepted() && !times.is_empty() && times.len() == declared)
        .then(|| geomean(times.iter().map(|t| t.us)))
        .flatten();
    (times, fitness)
}

/// The geometric mean of the positive, finite values (the others are skipped); `None` when
/// there are none. The one geometric mean of the crate (fitness, speedups, the benchmark).
pub fn geomean(v: impl Iterator<Item = f64>) -> Option<f64> {
    let (mut s, mut n) = (0.0, 0usize);
    for x in v {
        if x > 0.0 && x.is_finite() {
            s += x.ln();
            n += 1;
        }
    }
    (n > 0).then(|| (s / n as f64).exp())
}

/// The population of one op, with its on-disk record.
#[derive(Debug)]
pub struct Population {
    dir: PathBuf,
    /// Every candidate, by id order (index = id − 1).
    pub all: Vec<Individual>,
    /// Island membership (ids), the members of each island.
    pub islands: [Vec<usize>; ISLANDS],
    /// Lines read back from an earlier, interrupted run of the same folder: the first
    /// `resumed.len()` candidates are re-traced from them instead of judged again.
    resumed: Vec<(CandidateLine, Candidate, Option<Evaluation>)>,
}

/// Why the population's record cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum PopulationError {
    /// A file cannot be read or written.
    #[error("{path}: {detail}")]
    Io {
        /// The file.
        path: String,
        /// What failed.
        detail: String,
    },
    /// An earlier run's record does not match what this run produces (the command, the
    /// knowledge or the model's answers changed): it cannot be resumed.
    #[error("cannot resume {path}: candidate {id} was {was} in the earlier run but is {now} now (the command, the knowledge base or the recording changed); use a new --run-dir")]
    Diverged {
        /// candidates.jsonl.
        path: String,
        /// The candidate's id.
        id: usize,
        /// What the record says.
        was: String,
        /// What this run produced.
        now: String,
    },
}

fn io(path: &Path, e: impl std::fmt::Display) -> PopulationError {
    PopulationError::Io {
        path: path.display().to_string(),
        detail: e.to_string(),
    }
}

/// Lowest fitness first (an unaccepted individual, without one, last), then the earlier id.
fn by_fitness(a: &Individual, b: &Individual) -> std::cmp::Ordering {
    a.line
        .fitness
        .unwrap_or(f64::INFINITY)
        .total_cmp(&b.line.fitness.unwrap_or(f64::INFINITY))
        .then(a.line.id.cmp(&b.line.id))
}

impl Population {
    /// The population of `op` recorded in `op_dir` (`<run>/<op>/`). An earlier run's
    /// `candidates.jsonl` there is read back for resuming: a line whose files are missing or
    /// do not parse ends what is resumed (it and everything after it is judged again), and a
    /// last line cut short by a kill is dropped.
    ///
    /// # Errors
    /// The folder cannot be created or the record cannot be read.
    pub fn open(op_dir: &Path, op: &OpSpec) -> Result<Population, PopulationError> {
        std::fs::create_dir_all(op_dir).map_err(|e| io(op_dir, e))?;
        let path = op_dir.join("candidates.jsonl");
        let mut resumed = Vec::new();
        if path.exists() {
            let text = std::fs::read_to_string(&path).map_err(|e| io(&path, e))?;
            for line in text.lines() {
                let Ok(l) = serde_json::from_str::<CandidateLine>(line) else {
                    break;
                };
                let Some((c, ev)) =
                    load_files(&op_dir.join("population").join(l.id.to_string()), op)
                else {
                    break;
                };
                if l.id != resumed.len() + 1 {
                    break;
                }
                resumed.push((l, c, ev));
            }
            // Rewrite the record with only what resumes (a torn last line goes).
            let mut keep = String::new();
            for (l, _, _) in &resumed {
                keep.push_str(&serde_json::to_string(l).map_err(|e| io(&path, e))?);
                keep.push('\n');
            }
            write_file_atomic(&path, keep.as_bytes()).map_err(|e| io(&path, e))?;
        }
        Ok(Population {
            dir: op_dir.to_path_buf(),
            all: Vec::new(),
            islands: Default::default(),
            resumed,
        })
    }

    /// Candidates of an earlier run still to be re-traced.
    pub fn resumable(&self) -> usize {
        self.resumed.len().saturating_sub(self.all.len())
    }

    /// The next id.
    pub fn next_id(&self) -> usize {
        self.all.len() + 1
    }

    /// The earlier run's record of candidate `id`, when there is one: the judged result to
    /// reuse instead of judging again.
    ///
    /// # Errors
    /// [`PopulationError::Diverged`] when the earlier run recorded different sources there.
    pub fn resumed_at(
        &self,
        id: usize,
        digest: &str,
    ) -> Result<Option<(CandidateLine, Option<Evaluation>)>, PopulationError> {
        let Some((l, _, ev)) = id.checked_sub(1).and_then(|i| self.resumed.get(i)) else {
            return Ok(None);
        };
        if l.digest != digest {
            return Err(PopulationError::Diverged {
                path: self.dir.join("candidates.jsonl").display().to_string(),
                id: l.id,
                was: format!("{} ({})", &l.digest[..12.min(l.digest.len())], l.phase),
                now: digest[..12.min(digest.len())].to_string(),
            });
        }
        Ok(Some((l.clone(), ev.clone())))
    }

    /// The earlier run's record of candidate `id` (its line, sources and evaluation), when
    /// the run folder holds one that resumes: lets the loop re-trace a candidate without
    /// re-making it (the offline seed without its `synth::search`).
    pub fn resumed_record(
        &self,
        id: usize,
    ) -> Option<(&CandidateLine, &Candidate, Option<&Evaluation>)> {
        let (l, c, ev) = id.checked_sub(1).and_then(|i| self.resumed.get(i))?;
        Some((l, c, ev.as_ref()))
    }

    /// An earlier candidate with the same sources (judged once).
    pub fn by_digest(&self, digest: &str) -> Option<&Individual> {
        self.all.iter().find(|i| {
            i.line.digest == digest && i.line.duplicate_of.is_none() && i.evaluation.is_some()
        })
    }

    /// Adds a candidate: writes its files, then appends its line (the commit point: a kill
    /// before it loses only this candidate), and puts it on its island when accepted. A
    /// candidate re-traced from the earlier run is not written again.
    ///
    /// # Errors
    /// A file that cannot be written.
    pub fn push(&mut self, ind: Individual) -> Result<&Individual, PopulationError> {
        let id = ind.line.id;
        debug_assert_eq!(id, self.all.len() + 1, "ids are consecutive");
        if id > self.resumed.len() {
            let d = self.dir.join("population").join(id.to_string());
            std::fs::create_dir_all(&d).map_err(|e| io(&d, e))?;
            let w = |name: &str, bytes: &[u8]| -> Result<(), PopulationError> {
                let p = d.join(name);
                write_file_atomic(&p, bytes).map_err(|e| io(&p, e))
            };
            w("kernel.cpp", ind.candidate.kernel.as_bytes())?;
            w("tiling.cpp", ind.candidate.tiling.as_bytes())?;
            w(
                "tiling_fields.txt",
                fields_text(&ind.candidate.tiling_fields).as_bytes(),
            )?;
            if let Some(ev) = &ind.evaluation {
                let text = serde_json::to_string_pretty(ev).map_err(|e| io(&d, e))?;
                w("evaluation.json", text.as_bytes())?;
            }
            let path = self.dir.join("candidates.jsonl");
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(|e| io(&path, e))?;
            let mut line = serde_json::to_string(&ind.line).map_err(|e| io(&path, e))?;
            line.push('\n');
            f.write_all(line.as_bytes()).map_err(|e| io(&path, e))?;
            f.sync_data().map_err(|e| io(&path, e))?;
        }
        if ind.line.fitness.is_some() {
            let island = ind.line.island % ISLANDS;
            self.islands[island].push(id);
        }
        self.all.push(ind);
        Ok(&self.all[id - 1])
    }

    /// The individual with id `id`.
    pub fn get(&self, id: usize) -> Option<&Individual> {
        id.checked_sub(1).and_then(|i| self.all.get(i))
    }

    /// The accepted individual with the lowest fitness (ties: the earlier one).
    pub fn best(&self) -> Option<&Individual> {
        self.all
            .iter()
            .filter(|i| i.line.fitness.is_some())
            .min_by(|a, b| by_fitness(a, b))
    }

    /// Whether `id`'s structure was written by a model: a model phase (`init`, `single`,
    /// `mutation`, `repair`, `tuning`), or a tiling variant of such a kernel. The offline seed
    /// and its tiling variants are not.
    pub fn model_written(&self, id: usize) -> bool {
        let mut cur = self.get(id);
        // Parents have smaller ids, so the walk ends.
        while let Some(ind) = cur {
            match ind.line.phase.as_str() {
                "tiling" => cur = ind.line.parent.and_then(|p| self.get(p)),
                "offline" => return false,
                _ => return true,
            }
        }
        false
    }

    /// The accepted individuals, best first (ties: the earlier one).
    pub fn ranked(&self) -> Vec<&Individual> {
        let mut v: Vec<&Individual> = self
            .all
            .iter()
            .filter(|i| i.line.fitness.is_some())
            .collect();
        v.sort_by(|a, b| by_fitness(a, b));
        v
    }

    /// The parents of the next generation on `island`: at most `n`, the island's best
    /// first, then one per niche not chosen yet (by fitness), then the best of the rest.
    pub fn select(&self, island: usize, n: usize) -> Vec<usize> {
        let mut members: Vec<&Individual> = self.islands[island % ISLANDS]
            .iter()
            .filter_map(|id| self.get(*id))
            .collect();
        members.sort_by(|a, b| by_fitness(a, b));
        members.dedup_by(|a, b| a.line.id == b.line.id);
        let mut chosen: Vec<usize> = Vec::new();
        let mut niches: Vec<Niche> = Vec::new();
        for m in &members {
            if chosen.len() >= n {
                break;
            }
            let niche = m.niche();
            if chosen.is_empty() || !niches.contains(&niche) {
                chosen.push(m.line.id);
                niches.push(niche);
            }
        }
        for m in &members {
            if chosen.len() >= n {
                break;
            }
            if !chosen.contains(&m.line.id) {
                chosen.push(m.line.id);
            }
        }
        chosen
    }

    /// Migration: each island's best joins the other islands.
    pub fn migrate(&mut self) {
        let bests: Vec<Option<usize>> = (0..ISLANDS)
            .map(|i| self.select(i, 1).first().copied())
            .collect();
        for (from, best) in bests.iter().enumerate() {
            let Some(b) = best else { continue };
            for to in 0..ISLANDS {
                if to != from && !self.islands[to].contains(b) {
                    self.islands[to].push(*b);
                }
            }
        }
    }

    /// The island with fewer accepted members (where a new seed goes).
    pub fn smaller_island(&self) -> usize {
        (0..ISLANDS)
            .min_by_key(|i| self.islands[*i].len())
            .unwrap_or(0)
    }
}

/// Reads a candidate's files back (None when any is missing or does not parse).
fn load_files(d: &Path, op: &OpSpec) -> Option<(Candidate, Option<Evaluation>)> {
    let kernel = std::fs::read_to_string(d.join("kernel.cpp")).ok()?;
    let tiling = std::fs::read_to_string(d.join("tiling.cpp")).ok()?;
    let fields = std::fs::read_to_string(d.join("tiling_fields.txt")).ok()?;
    // A candidate that was never made (an answer that did not apply) has no fields.
    let fields = if fields.trim().is_empty() {
        Vec::new()
    } else {
        parse_fields(&fields, op).ok()?
    };
    let ev = match std::fs::read_to_string(d.join("evaluation.json")) {
        Ok(t) => Some(serde_json::from_str(&t).ok()?),
        Err(_) => None,
    };
    Some((Candidate::new(kernel, tiling, fields), ev))
}
