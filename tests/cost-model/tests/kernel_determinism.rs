//! The same kernel and shape give the same modelled time on every run and with any
//! number of host threads (AGENTICCANN_SIM_THREADS). One test in this binary, because
//! it changes the process environment.

use cost_model_tests::{experiment, Report};

fn reports(name: &str, params: &[u64]) -> Vec<Report> {
    experiment(name, params)
        .reports()
        .into_iter()
        .cloned()
        .collect()
}

#[test]
fn reports_are_identical_across_runs_and_thread_counts() {
    let cases: [(&str, Vec<u64>); 4] = [
        ("add", vec![(1 << 20) + 48 * 512, 48, 512, 2, 0]),
        ("add", vec![1 << 20, 96, 1024, 2, 1]),
        ("exp_ln", vec![1 << 18, 40, 1024, 2, 1]),
        ("rmsnorm_eager", vec![256, 1024, 48]),
    ];
    for (name, params) in &cases {
        std::env::set_var("AGENTICCANN_SIM_THREADS", "1");
        let base = reports(name, params);
        for threads in ["1", "2", "3", "8"] {
            std::env::set_var("AGENTICCANN_SIM_THREADS", threads);
            for _ in 0..2 {
                assert_eq!(
                    reports(name, params),
                    base,
                    "{name} {params:?} with {threads} threads"
                );
            }
        }
    }
    std::env::remove_var("AGENTICCANN_SIM_THREADS");
}
