// A random bot on the stdio transport, in Java with Gson (Debian's libgoogle-gson-java).
//
// The referee writes one request per line on stdin (JSON, docs/protocol.md "The stdio
// transport"); the bot writes one reply per line on stdout, in order, with the request's
// request_id. Anything for people goes to stderr, which the referee keeps in the bot's log:
// the JVM writes its own fatal errors to stdout, where the referee reads them as bad replies.
// Its choice is seeded by the game and decision, so a replayed game plays the same.
//
//     command: java -Xmx64m -XX:+UseSerialGC -jar bots/stdio/java/build/stdio-random.jar
//     transport: stdio

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;

public final class RandomBot {
    private static final String[] GAMES = {"flea-circus", "flohcati", "animal-circus"};

    /** The reply to one request: the same case (hello, start_game, decide, end_game). */
    static JsonObject answer(JsonObject message) {
        JsonObject reply = new JsonObject();
        reply.add("request_id", message.get("request_id"));
        if (message.has("hello")) {
            JsonObject hello = new JsonObject();
            hello.addProperty("name", "stdio-random-java");
            hello.addProperty("version", "1.0");
            hello.addProperty("protocol_version", "1.1.0");
            JsonArray games = new JsonArray();
            for (String game : GAMES) {
                JsonObject support = new JsonObject();
                support.addProperty("game", game);
                games.add(support);
            }
            hello.add("games", games);
            reply.add("hello", hello);
        } else if (message.has("decide")) {
            JsonObject request = message.getAsJsonObject("decide");
            // A field at its default is absent: no legal_actions would be an empty list.
            int legal = request.has("legal_actions")
                    ? request.getAsJsonArray("legal_actions").size() : 1;
            String seed = request.get("game_id").getAsString() + "/"
                    + request.get("decision_id").getAsString();
            JsonObject decision = new JsonObject();
            decision.add("decision_id", request.get("decision_id"));
            decision.addProperty("action_index", new Random(seed.hashCode()).nextInt(legal));
            reply.add("decide", decision);
        } else if (message.has("start_game")) {
            reply.add("start_game", new JsonObject());
        } else {
            reply.add("end_game", new JsonObject());
        }
        return reply;
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(
                new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        for (String line; (line = in.readLine()) != null; ) {
            out.println(answer(JsonParser.parseString(line).getAsJsonObject()));
            out.flush();   // a reply left in a buffer is a timeout
        }
    }
}
