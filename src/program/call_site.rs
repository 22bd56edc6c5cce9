//! How V8 names a value it cannot destructure or iterate, for the guards that stand between a
//! pattern and its value: a guard's call would otherwise be what V8's message names
//! (`Cannot destructure property 'a' of '__dsh_spread(...)'`), so the guard is told what V8 would
//! have said and says it itself.
//!
//! V8 prints the expression that gave the value as its call printer does (`x.k`, `f(...)`,
//! `(intermediate value)` for what it does not spell out); where it finds no expression (a
//! parameter, an assignment's array pattern) it names the value by its type (`object null`,
//! `number 5`), which the guard does at run time. The messages' forms are
//! src/js/listing_guards.js's `destructureError`.

use swc_ecma_ast::{
  ArrowExpr, ArrowFunctionBody, AssignTarget, BinaryOp, Callee, Class, ClassMember, Decl, Expr, ExprOrSpread,
  Function, Lit, MemberExpr, MemberProp, MetaPropKind, ObjectPat, ObjectPatProp, Pat, PropName,
  SimpleAssignTarget, Stmt, UnaryOp,
};

/// `Cannot destructure property 'key' of 'text' as it is null.` (`Cannot destructure 'text'…`
/// without a key); the value's type names it when there is no text.
const DESTRUCTURE: u8 = 0;
/// `Cannot read properties of null (reading 'key')`: V8's words when the pattern's first property
/// has a default.
const READING: u8 = 1;
/// `text is not iterable`.
const NOT_ITERABLE: u8 = 2;
/// `text is not a function or its return value is not iterable`.
const CALL_NOT_ITERABLE: u8 = 3;
/// `number 5 is not iterable (cannot read property Symbol(Symbol.iterator))`.
const VALUE_NOT_ITERABLE: u8 = 4;

/// Where a destructured value comes from, which decides the words of V8's message.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Source<'a> {
  /// A declaration's initialiser.
  Declared(&'a Expr),
  /// An assignment's right side.
  Assigned(&'a Expr),
  /// An argument.
  Argument,
}

/// The guard's message argument for `pattern` destructuring a value from `source`, as a JavaScript
/// array literal, or `None` where the guard must let V8 take the value (a pattern with a default).
pub fn destructure_message(pattern: &Pat, source: Source) -> Option<String> {
  match pattern {
    Pat::Object(object) => Some(object_message(object, source)),
    Pat::Array(_) => Some(array_message(source)),
    // A default takes `undefined` (and passes through the guard of its own); V8 names `null` by
    // the default's desugared form.
    Pat::Assign(assign) if source == Source::Argument => match &*assign.left {
      Pat::Object(object) => {
        let message = object_message(object, Source::Argument);
        Some(format!("{},\"{DEFAULTED}\",1]", message.strip_suffix(",null]")?))
      }
      _ => None,
    },
    _ => None,
  }
}

/// The guard's message argument for an array pattern destructuring a value from `source`.
pub fn array_message(source: Source) -> String {
  match source {
    Source::Declared(expr) => iterable_message(expr, false),
    Source::Assigned(_) | Source::Argument => format!("[{VALUE_NOT_ITERABLE}]"),
  }
}

/// The guard's message argument for a for-of over `iterable`.
pub fn for_of_message(iterable: &Expr) -> String {
  iterable_message(iterable, true)
}

/// The guard's message argument for an object pattern destructuring a value from `source`.
pub fn object_message(object: &ObjectPat, source: Source) -> String {
  let text = match source {
    Source::Declared(expr) | Source::Assigned(expr) => quoted(&nested(expr, false)),
    Source::Argument => "null".to_owned(),
  };
  let (form, key) = match object.props.first() {
    Some(ObjectPatProp::KeyValue(property)) => {
      let form = if matches!(&*property.value, Pat::Assign(_)) { READING } else { DESTRUCTURE };
      (form, key_text(&property.key))
    }
    Some(ObjectPatProp::Assign(property)) => {
      let form = if property.value.is_some() { READING } else { DESTRUCTURE };
      (form, Some(property.key.sym.to_string()))
    }
    Some(ObjectPatProp::Rest(_)) | None => (DESTRUCTURE, None),
  };
  let key = key.map_or_else(|| "null".to_owned(), |key| quoted(&key));
  format!("[{form},{key},{text}]")
}

fn iterable_message(expr: &Expr, for_of: bool) -> String {
  let expr = unparenthesised(expr);
  // A for-of's tagged template is a call of its tag.
  let callee = match expr {
    Expr::Call(call) => match &call.callee {
      Callee::Expr(callee) => Some(&**callee),
      _ => None,
    },
    Expr::TaggedTpl(tagged) if for_of => Some(&*tagged.tag),
    _ => None,
  };
  if let Some(callee) = callee
    && (for_of || matches!(callee, Expr::Ident(_)))
  {
    return format!("[{CALL_NOT_ITERABLE},null,{}]", quoted(&nested(callee, true)));
  }
  // Where V8's printer does not find the value's expression, V8 names the value itself.
  // (After a short-circuit operator, whether it finds it depends on which operand gave the value,
  // which is not known here: it is named.)
  let named = if for_of {
    !matches!(expr, Expr::OptChain(_))
  } else {
    !matches!(
      expr,
      Expr::Member(_)
        | Expr::Call(_)
        | Expr::TaggedTpl(_)
        | Expr::Bin(_)
        | Expr::Seq(_)
        | Expr::Object(_)
        | Expr::Array(_)
        | Expr::New(_)
        | Expr::Assign(_)
        | Expr::Update(_)
        | Expr::Await(_)
        | Expr::OptChain(_)
    )
  };
  if named {
    format!("[{NOT_ITERABLE},null,{}]", quoted(&nested(expr, true)))
  } else {
    format!("[{VALUE_NOT_ITERABLE}]")
  }
}

fn unparenthesised(mut expr: &Expr) -> &Expr {
  while let Expr::Paren(inner) = expr {
    expr = &inner.expr;
  }
  expr
}

/// What V8's printer writes for a conditional expression, as a parameter's default is once V8 has
/// desugared it.
const DEFAULTED: &str = "(intermediate value)(intermediate value)(intermediate value)";

fn intermediate() -> String {
  "(intermediate value)".to_owned()
}

/// `expr` as V8's call printer writes it, or `None` where the printer writes nothing of it (where
/// an enclosing expression's printer then writes `(intermediate value)`). V8's parser has already
/// folded literal arithmetic and unary operators on literals, and merged a chain of one operator
/// into one operation, which print as such.
fn printed(expr: &Expr, iterating: bool) -> Option<String> {
  if let Some(value) = folded(expr) {
    return Some(value.text());
  }
  match unparenthesised(expr) {
    Expr::Ident(name) => Some(name.sym.to_string()),
    Expr::This(_) => Some("this".to_owned()),
    Expr::Lit(Lit::Regex(regex)) => Some(format!("/{}/{}", regex.exp, v8_flag_order(&regex.flags))),
    Expr::Tpl(template) => Some(template.exprs.iter().map(|part| nested(part, iterating)).collect()),
    Expr::TaggedTpl(tagged) => Some(called(nested(&tagged.tag, iterating), iterating)),
    Expr::Member(member) => Some(member_text(member, iterating)),
    Expr::Call(call) => match &call.callee {
      Callee::Expr(callee) => Some(called(nested(callee, iterating), iterating)),
      _ => None,
    },
    Expr::Assign(assign) => match &assign.left {
      AssignTarget::Simple(SimpleAssignTarget::Ident(name)) => Some(name.id.sym.to_string()),
      AssignTarget::Simple(SimpleAssignTarget::Member(member)) => Some(member_text(member, iterating)),
      _ => None,
    },
    // Where the value is iterated, the printer writes what a `new` calls.
    Expr::New(new) if iterating => Some(nested(&new.callee, iterating)),
    Expr::Await(_) | Expr::OptChain(_) | Expr::New(_) => Some(intermediate()),
    Expr::Cond(_) => Some(DEFAULTED.to_owned()),
    Expr::Object(object) => Some(format!("{{{}}}", intermediate().repeat(object.props.len()))),
    Expr::Array(array) => {
      let elements: Vec<String> = array
        .elems
        .iter()
        .map(|element| match element {
          None => intermediate(),
          Some(ExprOrSpread { spread: Some(_), expr }) => format!("(...{})", nested(expr, iterating)),
          Some(ExprOrSpread { expr, .. }) => nested(expr, iterating),
        })
        .collect();
      Some(format!("[{}]", elements.join(",")))
    }
    Expr::Seq(sequence) => {
      let parts: Vec<String> = sequence.exprs.iter().map(|part| nested(part, iterating)).collect();
      Some(format!("({})", parts.join(" , ")))
    }
    Expr::Bin(binary) => {
      let mut operands = vec![&*binary.right];
      let mut left = &*binary.left;
      // V8 merges `a + b + c` into one operation of three operands, printed in one pair of
      // parentheses; a folded left side is a literal, which ends the chain.
      while chains(binary.op)
        && let Expr::Bin(inner) = unparenthesised(left)
        && inner.op == binary.op
        && folded(left).is_none()
      {
        operands.push(&inner.right);
        left = &inner.left;
      }
      operands.push(left);
      let texts: Vec<String> = operands.iter().rev().map(|operand| nested(operand, iterating)).collect();
      Some(format!("({})", texts.join(&format!(" {} ", binary.op.as_str()))))
    }
    Expr::Unary(unary) => {
      let operator = unary.op.as_str();
      let space = if operator.chars().all(char::is_alphabetic) { " " } else { "" };
      Some(format!("({operator}{space}{})", nested(&unary.arg, iterating)))
    }
    Expr::Update(update) => {
      let operator = update.op.as_str();
      let argument = nested(&update.arg, iterating);
      Some(if update.prefix { format!("({operator}{argument})") } else { format!("({argument}{operator})") })
    }
    Expr::Fn(function) => repeated_intermediate(function_statements(&function.function)?),
    Expr::Arrow(arrow) => repeated_intermediate(arrow_statements(arrow)?),
    Expr::Class(class) => repeated_intermediate(class_members(&class.class)?),
    Expr::MetaProp(meta) if meta.kind == MetaPropKind::NewTarget => Some(".new.target".to_owned()),
    _ => None,
  }
}

/// A property read: `o.k` for a name or a text V8 made a literal of, `o[k]` for any other key.
fn member_text(member: &MemberExpr, iterating: bool) -> String {
  let object = nested(&member.obj, iterating);
  match &member.prop {
    MemberProp::Ident(name) => format!("{object}.{}", name.sym),
    MemberProp::Computed(computed) => match folded(&computed.expr) {
      Some(Folded::Text(key)) => format!("{object}.{key}"),
      _ => format!("{object}[{}]", nested(&computed.expr, iterating)),
    },
    MemberProp::PrivateName(name) => format!("{object}[#{}]", name.name),
  }
}

/// A call of what `callee` names: where the value is iterated, the printer leaves out the `(...)`.
fn called(callee: String, iterating: bool) -> String {
  if iterating { callee } else { format!("{callee}(...)") }
}

/// `expr` inside another expression: `(intermediate value)` where its own printer writes nothing.
fn nested(expr: &Expr, iterating: bool) -> String {
  printed(expr, iterating).unwrap_or_else(intermediate)
}

/// Whether V8 merges a chain of `op` into one operation.
fn chains(op: BinaryOp) -> bool {
  !matches!(
    op,
    BinaryOp::Exp
      | BinaryOp::EqEq
      | BinaryOp::NotEq
      | BinaryOp::EqEqEq
      | BinaryOp::NotEqEq
      | BinaryOp::Lt
      | BinaryOp::LtEq
      | BinaryOp::Gt
      | BinaryOp::GtEq
      | BinaryOp::In
      | BinaryOp::InstanceOf
  )
}

/// The printer writes `(intermediate value)` for each statement of a function literal's body; none
/// when there are none.
fn repeated_intermediate(count: usize) -> Option<String> {
  (count > 0).then(|| intermediate().repeat(count))
}

/// The statements V8 makes of a function's body: its own, less function declarations and empty
/// statements, and a generator's first suspension. A parameter list other than plain names adds
/// the statement that sets it up, and a body that then declares names becomes one block after it;
/// whether a nested statement declares a `var` is not looked for here.
fn function_statements(function: &Function) -> Option<usize> {
  let simple = function.params.iter().all(|parameter| matches!(parameter.pat, Pat::Ident(_)));
  let statements = function.body.as_ref().map_or(&[][..], |body| &body.stmts[..]);
  Some(body_statements(simple, statements)? + usize::from(function.is_generator))
}

fn arrow_statements(arrow: &ArrowExpr) -> Option<usize> {
  let simple = arrow.params.iter().all(|parameter| matches!(parameter, Pat::Ident(_)));
  match &*arrow.body {
    ArrowFunctionBody::FunctionBody(body) => body_statements(simple, &body.stmts),
    ArrowFunctionBody::Expr(_) => Some(1 + usize::from(!simple)),
  }
}

fn body_statements(simple_parameters: bool, statements: &[Stmt]) -> Option<usize> {
  let counted = statements
    .iter()
    .filter(|statement| !matches!(statement, Stmt::Empty(_) | Stmt::Decl(Decl::Fn(_))))
    .count();
  if simple_parameters {
    return Some(counted);
  }
  let compound = statements.iter().any(|statement| {
    !matches!(statement, Stmt::Expr(_) | Stmt::Return(_) | Stmt::Throw(_) | Stmt::Empty(_) | Stmt::Decl(_))
  });
  if compound {
    None
  } else if statements.iter().any(|statement| matches!(statement, Stmt::Decl(_))) {
    Some(2)
  } else {
    Some(1 + counted)
  }
}

/// A class of methods alone prints one `(intermediate value)` a method; what V8 makes of fields,
/// constructors and a heritage is not spelled out here.
fn class_members(class: &Class) -> Option<usize> {
  if class.super_class.is_some() {
    return None;
  }
  class
    .body
    .iter()
    .all(|member| {
      matches!(member, ClassMember::Method(method) if !matches!(method.key, PropName::Computed(_)))
    })
    .then_some(class.body.len())
}

/// A regular expression's flags in the order V8 prints them.
fn v8_flag_order(flags: &str) -> String {
  "dgilmsuvy".chars().filter(|flag| flags.contains(*flag)).collect()
}

/// A literal V8's parser made of an expression.
enum Folded {
  Number(f64),
  Text(String),
  Bool(bool),
  Null,
}

impl Folded {
  /// The literal as the printer writes it.
  fn text(&self) -> String {
    match self {
      Folded::Number(value) => number_text(*value),
      Folded::Text(text) => format!("\"{text}\""),
      Folded::Bool(value) => value.to_string(),
      Folded::Null => "null".to_owned(),
    }
  }

  fn truthy(&self) -> bool {
    match self {
      Folded::Number(value) => *value != 0.0 && !value.is_nan(),
      Folded::Text(text) => !text.is_empty(),
      Folded::Bool(value) => *value,
      Folded::Null => false,
    }
  }
}

/// What V8's parser folds `expr` to: a literal, a template without substitutions, a unary `+`, `-`
/// or `~` of a number, a `!` of a literal, and arithmetic on two numbers or `+` of two texts.
fn folded(expr: &Expr) -> Option<Folded> {
  match unparenthesised(expr) {
    Expr::Lit(Lit::Num(number)) => Some(Folded::Number(number.value)),
    Expr::Lit(Lit::Str(text)) => Some(Folded::Text(text.value.to_string_lossy().into_owned())),
    Expr::Lit(Lit::Null(_)) => Some(Folded::Null),
    Expr::Lit(Lit::Bool(value)) => Some(Folded::Bool(value.value)),
    Expr::Tpl(template) if template.exprs.is_empty() => {
      let cooked = template.quasis.first()?.cooked.as_ref()?;
      Some(Folded::Text(cooked.to_string_lossy().into_owned()))
    }
    Expr::Unary(unary) => {
      let operand = folded(&unary.arg)?;
      match (unary.op, operand) {
        (UnaryOp::Bang, operand) => Some(Folded::Bool(!operand.truthy())),
        (UnaryOp::Plus, Folded::Number(value)) => Some(Folded::Number(value)),
        (UnaryOp::Minus, Folded::Number(value)) => Some(Folded::Number(-value)),
        (UnaryOp::Tilde, Folded::Number(value)) => Some(Folded::Number(f64::from(!to_int32(value)))),
        _ => None,
      }
    }
    Expr::Bin(binary) => match (folded(&binary.left)?, folded(&binary.right)?) {
      (Folded::Number(left), Folded::Number(right)) => arithmetic(binary.op, left, right).map(Folded::Number),
      (Folded::Text(left), Folded::Text(right)) if binary.op == BinaryOp::Add => {
        Some(Folded::Text(left + &right))
      }
      _ => None,
    },
    _ => None,
  }
}

/// The arithmetic V8's parser folds, as JavaScript computes it.
fn arithmetic(op: BinaryOp, left: f64, right: f64) -> Option<f64> {
  let shift = || to_uint32(right) & 31;
  Some(match op {
    BinaryOp::Add => left + right,
    BinaryOp::Sub => left - right,
    BinaryOp::Mul => left * right,
    BinaryOp::Div => left / right,
    BinaryOp::Mod => left % right,
    // `1 ** Infinity` is NaN in JavaScript, 1 in IEEE's pow.
    BinaryOp::Exp if left.abs() == 1.0 && right.is_infinite() => f64::NAN,
    BinaryOp::Exp => left.powf(right),
    BinaryOp::BitOr => f64::from(to_int32(left) | to_int32(right)),
    BinaryOp::BitAnd => f64::from(to_int32(left) & to_int32(right)),
    BinaryOp::BitXor => f64::from(to_int32(left) ^ to_int32(right)),
    BinaryOp::LShift => f64::from(to_int32(left).wrapping_shl(shift())),
    BinaryOp::RShift => f64::from(to_int32(left) >> shift()),
    BinaryOp::ZeroFillRShift => f64::from(to_uint32(left) >> shift()),
    _ => return None,
  })
}

/// ECMAScript's ToUint32.
fn to_uint32(value: f64) -> u32 {
  if !value.is_finite() {
    return 0;
  }
  value.trunc().rem_euclid(4_294_967_296.0) as u32
}

/// ECMAScript's ToInt32.
fn to_int32(value: f64) -> i32 {
  to_uint32(value) as i32
}

/// A number as JavaScript's `String(number)` writes it.
pub(crate) fn number_text(value: f64) -> String {
  if value.is_nan() {
    return "NaN".to_owned();
  }
  if value.is_infinite() {
    return if value > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
  }
  if value == 0.0 {
    return "0".to_owned();
  }
  let sign = if value < 0.0 { "-" } else { "" };
  // The shortest digits that read back as the number, and where the point goes (`n` in the
  // specification's Number::toString).
  let scientific = format!("{:e}", value.abs());
  let (mantissa, exponent) = scientific.split_once('e').expect("`{:e}` writes an exponent");
  let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
  let point = exponent.parse::<i32>().expect("an integer exponent") + 1;
  let count = digits.len() as i32;
  let text = if count <= point && point <= 21 {
    format!("{digits}{}", "0".repeat((point - count) as usize))
  } else if 0 < point && point <= 21 {
    format!("{}.{}", &digits[..point as usize], &digits[point as usize..])
  } else if -6 < point && point <= 0 {
    format!("0.{}{digits}", "0".repeat((-point) as usize))
  } else {
    let (first, rest) = digits.split_at(1);
    let fraction = if rest.is_empty() { String::new() } else { format!(".{rest}") };
    let power = point - 1;
    format!("{first}{fraction}e{}{power}", if power >= 0 { "+" } else { "" })
  };
  format!("{sign}{text}")
}

fn key_text(key: &PropName) -> Option<String> {
  match key {
    PropName::Ident(name) => Some(name.sym.to_string()),
    PropName::Str(text) => Some(text.value.to_string_lossy().into_owned()),
    PropName::Num(number) => Some(number_text(number.value)),
    PropName::Computed(_) | PropName::BigInt(_) => None,
  }
}

/// `text` as a JavaScript string literal.
fn quoted(text: &str) -> String {
  serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

#[cfg(test)]
mod tests {
  use swc_common::sync::Lrc;
  use swc_common::{FileName, SourceMap};
  use swc_ecma_ast::{Decl, EsVersion, Stmt};
  use swc_ecma_parser::{Syntax, parse_file_as_script};

  use super::{Source, destructure_message, for_of_message};

  /// The message argument for the one declaration `code` holds, and for a for-of over its
  /// initialiser.
  fn messages(code: &str) -> (String, String) {
    let map: Lrc<SourceMap> = Default::default();
    let file = map.new_source_file(Lrc::new(FileName::Anon), code.to_owned());
    let script = parse_file_as_script(&file, Syntax::default(), EsVersion::latest(), None, &mut Vec::new()).unwrap();
    let Stmt::Decl(Decl::Var(declaration)) = &script.body[0] else { panic!("not a declaration") };
    let declarator = &declaration.decls[0];
    let init = declarator.init.as_deref().unwrap();
    (
      destructure_message(&declarator.name, Source::Declared(init)).unwrap(),
      for_of_message(init),
    )
  }

  #[test]
  fn names_the_initialiser_as_v8_prints_it() {
    assert_eq!(messages("const { a, ...r } = null").0, r#"[0,"a","null"]"#);
    assert_eq!(messages("const { a, ...r } = x['k'].y").0, r#"[0,"a","x.k.y"]"#);
    assert_eq!(messages("const { 'a-b': a, ...r } = x[0]").0, r#"[0,"a-b","x[0]"]"#);
    assert_eq!(messages("const { a, ...r } = o.f(1, 2)").0, r#"[0,"a","o.f(...)"]"#);
    assert_eq!(messages("const { a, ...r } = (x?.y)").0, r#"[0,"a","(intermediate value)"]"#);
    assert_eq!(messages("const { [k]: a, ...r } = n").0, r#"[0,null,"n"]"#);
    assert_eq!(messages("const { ...r } = n").0, r#"[0,null,"n"]"#);
    assert_eq!(messages("const { a = 1, ...r } = n").0, r#"[1,"a","n"]"#);
    // A numeric key as JavaScript writes the number (Node 24: `property '1e+21'`).
    assert_eq!(messages("const { 1.5: a, ...r } = n").0, r#"[0,"1.5","n"]"#);
    assert_eq!(messages("const { 1e21: a, ...r } = n").0, r#"[0,"1e+21","n"]"#);
    assert_eq!(messages("const { a: b = 1, ...r } = n").0, r#"[1,"a","n"]"#);
    // Operators fully parenthesised, an object literal by its properties, as V8's printer writes them.
    assert_eq!(messages("const { a, ...r } = typeof x === 1 || null").0, r#"[0,"a","(((typeof x) === 1) || null)"]"#);
    assert_eq!(messages("const { a, ...r } = (x, -y)").0, r#"[0,"a","(x , (-y))"]"#);
    assert_eq!(messages("const { a, ...r } = ({ y: null, z }).y").0, r#"[0,"a","{(intermediate value)(intermediate value)}.y"]"#);
    assert_eq!(messages("const { a, ...r } = new Object().y").0, r#"[0,"a","(intermediate value).y"]"#);
    assert_eq!(messages("const { a, ...r } = [][0]").0, r#"[0,"a","[][0]"]"#);
  }

  /// The initialiser's text in the message argument for `const { a, ...r } = <initialiser>`.
  fn named(initialiser: &str) -> String {
    let message = messages(&format!("const {{ a, ...r }} = {initialiser}")).0;
    let parts: Vec<serde_json::Value> = serde_json::from_str(&message).unwrap();
    parts[2].as_str().unwrap().to_owned()
  }

  #[test]
  fn names_literals_templates_and_functions_as_v8_prints_them() {
    // Each pair as Node 24 names the value in `Cannot destructure property 'a' of '…' as it is null.`
    let cases = [
      ("[null][0]", "[null][0]"),
      ("[1, null][1]", "[1,null][1]"),
      ("[, null][1]", "[(intermediate value),null][1]"),
      ("[...[null]][0]", "[(...[null])][0]"),
      ("[{ q: 1 }][1]", "[{(intermediate value)}][1]"),
      ("[1.5, 's', true, undefined][9]", "[1.5,\"s\",true,undefined][9]"),
      ("[f()][0]", "[f(...)][0]"),
      ("`x`.y", "\"x\".y"),
      ("`a${'b'}c`.x", "\"b\".x"),
      ("`${1}${2}`.x", "12.x"),
      ("`a${x}b${o.p}`.y", "xo.p.y"),
      ("o[`x`]", "o.x"),
      ("o[`a${x}`]", "o[x]"),
      ("f`x`", "f(...)"),
      ("o.f`x`", "o.f(...)"),
      ("(function () { return null })()", "(intermediate value)(...)"),
      ("(function () { 1; 2; return null })()", "(intermediate value)(intermediate value)(intermediate value)(...)"),
      ("(function () { ; function g() {} return null })()", "(intermediate value)(...)"),
      ("(function (a, b = 1) { var c; return null })()", "(intermediate value)(intermediate value)(...)"),
      ("(function (a = 1) { 1; 2; return null })()", "(intermediate value)(intermediate value)(intermediate value)(intermediate value)(...)"),
      ("(function (a = 1) {})()", "(intermediate value)(...)"),
      ("(function (a = 1) { let z = 1; return null })()", "(intermediate value)(intermediate value)(...)"),
      ("((a = 1) => null)()", "(intermediate value)(intermediate value)(...)"),
      ("(function (...r) {})()", "(intermediate value)(...)"),
      ("(function* () {})().x", "(intermediate value)(...).x"),
      ("(() => null)()", "(intermediate value)(...)"),
      ("(() => {})()", "(intermediate value)(...)"),
      ("(({ p }) => null)({})", "(intermediate value)(intermediate value)(...)"),
      ("(class {}).x", "(intermediate value).x"),
      ("(class { a() {} b() {} }).x", "(intermediate value)(intermediate value).x"),
      ("(class extends Object {}).x", "(intermediate value).x"),
      ("/a/ysmigd.x", "/a/dgimsy.x"),
      ("(x = null)", "x"),
      ("(o.p ??= null)", "o.p"),
      ("(x ||= null)", "x"),
      ("o[1.5]", "o[1.5]"),
      ("o[1e-7]", "o[1e-7]"),
      ("o[1e21]", "o[1e+21]"),
      ("o[-1]", "o[-1]"),
      ("o[o.p]", "o[o.p]"),
      ("o[1n]", "o[(intermediate value)]"),
      ("o[null]", "o[null]"),
      ("[x++][1]", "[(x++)][1]"),
      ("[--x][1]", "[(--x)][1]"),
      ("[!0][1]", "[true][1]"),
      ("[!!1][1]", "[true][1]"),
      ("[~1][1]", "[-2][1]"),
      ("[-~1][1]", "[2][1]"),
      ("[-x][1]", "[(-x)][1]"),
      ("[+'1'][1]", "[(+\"1\")][1]"),
      ("[1 + 2][1]", "[3][1]"),
      ("['a' + 'b'][1]", "[\"ab\"][1]"),
      ("[2 * 3 - 1][1]", "[5][1]"),
      ("[1 / 3][1]", "[0.3333333333333333][1]"),
      ("[-1 >>> 0][1]", "[4294967295][1]"),
      ("[5 & 3 | 8 ^ 1][1]", "[9][1]"),
      ("[2 ** 53][1]", "[9007199254740992][1]"),
      ("[1e300 * 10][1]", "[1e+301][1]"),
      ("[0.000001][1]", "[0.000001][1]"),
      ("[1.5e-7][1]", "[1.5e-7][1]"),
      ("[123456789012345680000][1]", "[123456789012345680000][1]"),
      ("[1 ** Infinity][1]", "[(1 ** Infinity)][1]"),
      ("[x + x + x][1]", "[(x + x + x)][1]"),
      ("[(x + x) + x][1]", "[(x + x + x)][1]"),
      ("[x + (x + x)][1]", "[(x + (x + x))][1]"),
      ("[1 + 2 + x][1]", "[(3 + x)][1]"),
      ("[x * 2 + 1][1]", "[((x * 2) + 1)][1]"),
      ("[x || o.p || 1][1]", "[(x || o.p || 1)][1]"),
      ("[1 < 2][1]", "[(1 < 2)][1]"),
      ("[(1, 2)][1]", "[(1 , 2)][1]"),
      ("[this][1]", "[this][1]"),
    ];
    for (initialiser, v8) in cases {
      assert_eq!(named(initialiser), v8, "{initialiser}");
    }
  }

  #[test]
  fn names_an_iterable_as_v8_prints_it() {
    assert_eq!(messages("const [{ ...r }] = n"), (r#"[2,null,"n"]"#.to_owned(), r#"[2,null,"n"]"#.to_owned()));
    assert_eq!(messages("const [{ ...r }] = f()"), (r#"[3,null,"f"]"#.to_owned(), r#"[3,null,"f"]"#.to_owned()));
    assert_eq!(messages("const [{ ...r }] = x.k"), ("[4]".to_owned(), r#"[2,null,"x.k"]"#.to_owned()));
    assert_eq!(messages("const [{ ...r }] = x.y.f()"), ("[4]".to_owned(), r#"[3,null,"x.y.f"]"#.to_owned()));
    assert_eq!(messages("const [{ ...r }] = a || b"), ("[4]".to_owned(), r#"[2,null,"(a || b)"]"#.to_owned()));
    assert_eq!(messages("const [{ ...r }] = -a"), (r#"[2,null,"(-a)"]"#.to_owned(), r#"[2,null,"(-a)"]"#.to_owned()));
    assert_eq!(messages("const [{ ...r }] = 1n"), (r#"[2,null,"(intermediate value)"]"#.to_owned(), r#"[2,null,"(intermediate value)"]"#.to_owned()));
    assert_eq!(messages("const [{ ...r }] = 1 + 2").1, r#"[2,null,"3"]"#);
    assert_eq!(messages("const [{ ...r }] = (() => 5)()").1, r#"[3,null,"(intermediate value)"]"#);
    assert_eq!(messages("const [{ ...r }] = f`x`"), ("[4]".to_owned(), r#"[3,null,"f"]"#.to_owned()));
    assert_eq!(messages("const [{ ...r }] = `${o.q}`.length").1, r#"[2,null,"o.q.length"]"#);
    assert_eq!(messages("const [{ ...r }] = (x = 5)"), ("[4]".to_owned(), r#"[2,null,"x"]"#.to_owned()));
    // Where the value is iterated, a call prints as what it calls, a `new` as its constructor.
    assert_eq!(messages("const [{ ...r }] = -f()"), (r#"[2,null,"(-f)"]"#.to_owned(), r#"[2,null,"(-f)"]"#.to_owned()));
    assert_eq!(messages("const [{ ...r }] = [f()][0]").1, r#"[2,null,"[f][0]"]"#);
    assert_eq!(messages("const [{ ...r }] = f()()").1, r#"[3,null,"f"]"#);
    assert_eq!(messages("const [{ ...r }] = new Map().get(1)").1, r#"[3,null,"Map.get"]"#);
    assert_eq!(messages("const [{ ...r }] = f`x`.y").1, r#"[2,null,"f.y"]"#);
    assert_eq!(messages("const [{ ...r }] = x || null"), ("[4]".to_owned(), r#"[2,null,"(x || null)"]"#.to_owned()));
    assert_eq!(messages("const [{ ...r }] = x && 1").1, r#"[2,null,"(x && 1)"]"#);
    assert_eq!(messages("const [{ ...r }] = o?.p"), ("[4]".to_owned(), "[4]".to_owned()));
    assert_eq!(messages("const [{ ...r }] = x++"), ("[4]".to_owned(), r#"[2,null,"(x++)"]"#.to_owned()));
  }
}
