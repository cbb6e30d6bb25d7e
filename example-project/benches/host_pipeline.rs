//! Host wall time of the pipeline on the 8 golden sentences (8 x 16 tokens padded), f32 and
//! f16, with the host reference ops: median of 10 runs after 2 warm-ups, split into matrix
//! products and vector ops, and per op. Needs the real model (see tests/golden.rs).
//!
//! `cargo bench -p example-project --bench host_pipeline`

use std::time::Duration;

use example_project::fetch::resolve_model_dir;
use example_project::model::{Encoder, Timings};
use example_project::ops::host::HostReference;
use example_project::ops::profile::Profiled;
use example_project::ops::Element;
use example_project::tokenize::{Batch, SentenceTokenizer};
use example_project::weights::BertWeights;

const RUNS: usize = 10;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn bench<T: Element>(w: &BertWeights, batch: &Batch) {
    let enc = Encoder::<T>::new(w.clone());
    let mut all = Vec::new();
    let mut profiled = Profiled::new(HostReference::new());
    for i in 0..RUNS + 2 {
        let mut t = Timings::default();
        let mut ops = Profiled::new(HostReference::new());
        enc.embed(&mut ops, batch, &mut t).unwrap();
        if i >= 2 {
            all.push(t);
            profiled = ops;
        }
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{}: embed {:.1} ms median of {RUNS} (matmul {:.1} ms, vector ops {:.1} ms, {} calls)",
        <T as Element>::DTYPE,
        ms(median(all.iter().map(|t| t.total).collect())),
        ms(median(all.iter().map(|t| t.matmul).collect())),
        ms(median(all.iter().map(|t| t.vector_ops).collect())),
        all[0].vector_calls,
    );
    for (op, s) in profiled.stats() {
        println!(
            "    {:<29} {:>3} calls {:>8.2} ms (last run)",
            op.spec_name(<T as Element>::DTYPE),
            s.calls,
            ms(s.wall)
        );
    }
}

fn main() {
    let dir = match resolve_model_dir(None, false) {
        Ok(m) => m.dir,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let golden: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/minilm-l6-v2-embeddings.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let sentences: Vec<&str> = golden["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    let w = BertWeights::from_dir(&dir).unwrap();
    let batch = SentenceTokenizer::from_model_dir(&dir, w.config.max_position_embeddings)
        .unwrap()
        .encode(&sentences)
        .unwrap();
    println!(
        "host pipeline, {} sentences ({} x {} tokens padded), matrix products: ndarray + matrixmultiply",
        sentences.len(),
        batch.batch,
        batch.seq
    );
    bench::<f32>(&w, &batch);
    bench::<half::f16>(&w, &batch);
}
