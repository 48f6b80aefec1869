use zkbc::ir;

#[test]
fn example_round_trips() {
    let text = std::fs::read_to_string("examples/ir/sum_loop.ir").unwrap();
    let p = ir::parse_program(&text).unwrap();
    let printed = p.to_string();
    let q = ir::parse_program(&printed).unwrap();
    assert_eq!(p.normalized_text(), q.normalized_text());
    assert_eq!(printed, q.to_string());
    ir::verify::verify_program(&p).unwrap();
}
