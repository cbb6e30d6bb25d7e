//! Simulated kernel time per op, and the table that compares fused kernels with the eager
//! baseline.
//!
//! Times come from the cost model of `ascendc-sim`: each launch's
//! [`LaunchReport::total_us`](https://docs.rs/agenticcann) (slowest core plus the profile's
//! launch overhead, in µs — what the stream's modelled clock advances by). Host↔device copies
//! and the host matrix products are not part of these numbers.

use std::fmt::Write as _;

use super::Op;

/// Launches and simulated time of one op (summed over its calls), µs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OpCost {
    /// Op calls (one per `VectorOps` method call).
    pub calls: usize,
    /// Kernel launches those calls made.
    pub launches: usize,
    /// Simulated kernel time of those launches, µs.
    pub sim_us: f64,
}

/// Per-op [`OpCost`] in [`Op::ALL`] order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CostLog {
    costs: [OpCost; Op::ALL.len()],
}

impl CostLog {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one call of `op` that made `launches` launches taking `sim_us` µs in total.
    pub fn record(&mut self, op: Op, launches: usize, sim_us: f64) {
        let c = &mut self.costs[op_index(op)];
        c.calls += 1;
        c.launches += launches;
        c.sim_us += sim_us;
    }

    /// The cost of `op`.
    pub fn get(&self, op: Op) -> OpCost {
        self.costs[op_index(op)]
    }

    /// Sum over all ops.
    pub fn total(&self) -> OpCost {
        self.costs.iter().fold(OpCost::default(), |a, c| OpCost {
            calls: a.calls + c.calls,
            launches: a.launches + c.launches,
            sim_us: a.sim_us + c.sim_us,
        })
    }
}

fn op_index(op: Op) -> usize {
    Op::ALL
        .iter()
        .position(|&o| o == op)
        .expect("every Op is in Op::ALL")
}

/// `part / whole` as a percentage, 0 when `whole` is 0.
fn pct(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        100.0 * part / whole
    } else {
        0.0
    }
}

/// The relative reduction `1 - fused / eager`, as a percentage (0 when `eager` is 0).
pub fn reduction_pct(fused_us: f64, eager_us: f64) -> f64 {
    if eager_us > 0.0 {
        100.0 * (1.0 - fused_us / eager_us)
    } else {
        0.0
    }
}

/// The per-op table: fused launches, simulated time and share; the same for the eager
/// baseline; and the reduction per op and for the whole vector part.
pub fn cost_table(fused: &CostLog, eager: &CostLog) -> String {
    let (ft, et) = (fused.total(), eager.total());
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<26} {:>6} | {:>8} {:>12} {:>6} | {:>8} {:>12} {:>6} | {:>9}",
        "op",
        "calls",
        "launches",
        "fused µs",
        "share",
        "launches",
        "eager µs",
        "share",
        "reduction"
    );
    let _ = writeln!(s, "{}", "-".repeat(110));
    for op in Op::ALL {
        let (f, e) = (fused.get(op), eager.get(op));
        let _ = writeln!(
            s,
            "{:<26} {:>6} | {:>8} {:>12.1} {:>5.1}% | {:>8} {:>12.1} {:>5.1}% | {:>8.1}%",
            op.base_name(),
            f.calls,
            f.launches,
            f.sim_us,
            pct(f.sim_us, ft.sim_us),
            e.launches,
            e.sim_us,
            pct(e.sim_us, et.sim_us),
            reduction_pct(f.sim_us, e.sim_us)
        );
    }
    let _ = writeln!(s, "{}", "-".repeat(110));
    let _ = writeln!(
        s,
        "{:<26} {:>6} | {:>8} {:>12.1} {:>5.1}% | {:>8} {:>12.1} {:>5.1}% | {:>8.1}%",
        "vector part total",
        ft.calls,
        ft.launches,
        ft.sim_us,
        pct(ft.sim_us, ft.sim_us),
        et.launches,
        et.sim_us,
        pct(et.sim_us, et.sim_us),
        reduction_pct(ft.sim_us, et.sim_us)
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_sums_calls_launches_and_time() {
        let mut l = CostLog::new();
        l.record(Op::BiasGelu, 2, 10.0);
        l.record(Op::BiasGelu, 2, 5.0);
        l.record(Op::L2Normalize, 3, 1.5);
        assert_eq!(
            l.get(Op::BiasGelu),
            OpCost {
                calls: 2,
                launches: 4,
                sim_us: 15.0
            }
        );
        assert_eq!(l.total().launches, 7);
        assert_eq!(l.total().sim_us, 16.5);
        assert_eq!(l.get(Op::BiasAdd), OpCost::default());
    }

    #[test]
    fn table_shows_shares_and_reductions() {
        let (mut f, mut e) = (CostLog::new(), CostLog::new());
        f.record(Op::BiasGelu, 1, 30.0);
        f.record(Op::L2Normalize, 1, 10.0);
        e.record(Op::BiasGelu, 2, 60.0);
        e.record(Op::L2Normalize, 3, 20.0);
        let t = cost_table(&f, &e);
        let gelu = t.lines().find(|l| l.starts_with("bias_gelu")).unwrap();
        // fused 30 of 40 µs = 75%, eager 60 of 80 = 75%, reduction 50%.
        assert!(gelu.contains("30.0") && gelu.contains("75.0%") && gelu.contains("50.0%"));
        let total = t.lines().find(|l| l.starts_with("vector part")).unwrap();
        assert!(total.contains("40.0") && total.contains("80.0") && total.ends_with("50.0%"));
        assert_eq!(reduction_pct(1.0, 0.0), 0.0);
    }
}
