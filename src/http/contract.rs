//! What every operation of the OpenAPI document shares, added once here
//! rather than repeated in each `#[utoipa::path]`: the refusals that the
//! extractors and layers give whatever the handler does — 400 when a path,
//! query or body does not parse, 401 wherever a token is read (an operation
//! whose `security` names `bearer`, even as an option), 413 wherever a body
//! is read — the JSON error body on every refusal, and `Retry-After` on
//! every 429. What only some operations answer (403, 404, 409, 422, 429)
//! stays in their own attribute, beside the handler that answers it.
//!
//! The promise: the document served at `/openapi.json` lists every status
//! an operation can give (tests/contract.rs checks the shape, and
//! `.ci/schemathesis` the server against it).

use serde_json::{json, Map, Value};

const METHODS: [&str; 5] = ["get", "put", "post", "delete", "patch"];

/// The document as served: `api` (utoipa's) with the shared answers added.
pub fn complete(api: &utoipa::openapi::OpenApi) -> Value {
    let mut document = serde_json::to_value(api).unwrap_or(Value::Null);
    // Serde's `deny_unknown_fields` on a tagged enum refuses unknown fields
    // in each variant, which utoipa says of structs only.
    if let Some(variants) = document
        .pointer_mut("/components/schemas/TimeControl/oneOf")
        .and_then(Value::as_array_mut)
    {
        for variant in variants.iter_mut().filter_map(Value::as_object_mut) {
            variant.insert("additionalProperties".to_owned(), Value::Bool(false));
        }
    }
    if let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) {
        for item in paths.values_mut().filter_map(Value::as_object_mut) {
            for method in METHODS {
                if let Some(operation) = item.get_mut(method).and_then(Value::as_object_mut) {
                    complete_operation(operation);
                }
            }
        }
    }
    document
}

fn complete_operation(operation: &mut Map<String, Value>) {
    // A path parameter is always required (OpenAPI says so); utoipa leaves
    // it out for a parameter whose schema is hand-made (`schema_with`).
    for parameter in operation
        .get_mut("parameters")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter(|p| p["in"] == "path")
    {
        parameter["required"] = Value::Bool(true);
    }
    let has_parameters = operation
        .get("parameters")
        .and_then(Value::as_array)
        .is_some_and(|p| !p.is_empty());
    let has_body = operation.contains_key("requestBody");
    let reads_token = operation
        .get("security")
        .and_then(Value::as_array)
        .is_some_and(|alternatives| alternatives.iter().any(|a| a.get("bearer").is_some()));
    let Some(responses) = operation.get_mut("responses").and_then(Value::as_object_mut) else {
        return;
    };
    if has_parameters || has_body {
        add(
            responses,
            "400",
            "a path parameter, query parameter or body that does not parse",
        );
    }
    if reads_token {
        add(
            responses,
            "401",
            "no token where one is needed, or a token nobody holds",
        );
    }
    if has_body {
        add(responses, "413", "the body is larger than the server's limit");
    }
    for (status, response) in responses.iter_mut() {
        let Some(response) = response.as_object_mut() else {
            continue;
        };
        if !(status.starts_with('4') || status.starts_with('5')) {
            continue;
        }
        response.entry("content").or_insert_with(
            || json!({ "application/json": { "schema": { "$ref": "#/components/schemas/ErrorBody" } } }),
        );
        if status == "429" {
            let headers = response.entry("headers").or_insert_with(|| json!({}));
            headers["Retry-After"] = json!({
                "description": "seconds to wait before trying again",
                "schema": { "type": "integer", "minimum": 0 },
            });
        }
    }
}

fn add(responses: &mut Map<String, Value>, status: &str, description: &str) {
    responses
        .entry(status)
        .or_insert_with(|| json!({ "description": description }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_answers_are_added_where_they_apply() {
        let mut public = json!({ "responses": { "200": { "description": "" } } })
            .as_object()
            .cloned()
            .unwrap();
        complete_operation(&mut public);
        assert_eq!(
            public["responses"].as_object().unwrap().len(),
            1,
            "nothing read, nothing refused"
        );

        let mut write = json!({
            "parameters": [{ "name": "id", "in": "path" }],
            "requestBody": {},
            "security": [{ "bearer": [] }],
            "responses": { "200": { "description": "" }, "429": { "description": "slow down" } },
        })
        .as_object()
        .cloned()
        .unwrap();
        complete_operation(&mut write);
        let responses = write["responses"].as_object().unwrap();
        for status in ["400", "401", "413", "429"] {
            assert_eq!(
                responses[status]["content"]["application/json"]["schema"]["$ref"], "#/components/schemas/ErrorBody",
                "{status}"
            );
        }
        assert_eq!(responses["429"]["description"], "slow down", "kept");
        assert_eq!(responses["429"]["headers"]["Retry-After"]["schema"]["type"], "integer");
        assert!(responses["200"].get("content").is_none());
    }
}
