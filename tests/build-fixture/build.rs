fn main() {
    agenticcann_build::Builder::from_env().build();
}
