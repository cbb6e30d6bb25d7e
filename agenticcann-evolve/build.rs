//! Rebuilds the crate when the knowledge base it embeds (`../knowledge`, through
//! `include_dir!`) changes, including files added or removed.

fn main() {
    println!("cargo:rerun-if-changed=../knowledge");
    println!("cargo:rerun-if-changed=build.rs");
}
